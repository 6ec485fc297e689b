// Reading Blueprint files from disk for the commands that send them: the text exactly as
// written (the server stores it byte for byte) and the `name` that addresses it.
import fs from 'node:fs';
import path from 'node:path';
import { parseAllDocuments } from 'yaml';
import { CliError } from './errors';
import { blueprintError } from './diagnostics';

export interface BlueprintFile {
  /** As the operator wrote it on the command line (used in messages). */
  file: string;
  text: string;
}

export function readBlueprintFile(file: string, cwd: string): BlueprintFile {
  try {
    return { file, text: fs.readFileSync(path.resolve(cwd, file), 'utf8') };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const reason = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'it is a directory' : (code ?? (error as Error).message);
    throw new CliError(`cannot read ${file}: ${reason}`, 1, ['give the path of a Blueprint YAML file']);
  }
}

/**
 * The document's `name`, read just far enough to address PUT /v1/blueprints/{name}.
 * Everything else is the server's to validate, so its diagnostics stay authoritative.
 */
export function blueprintName(blueprint: BlueprintFile): string {
  const documents = parseAllDocuments(blueprint.text);
  const list = Array.isArray(documents) ? documents : [];
  if (list.length > 1) {
    const second = list[1].range[0];
    const { line, col } = lineCol(blueprint.text, second);
    throw blueprintError(blueprint.file, { code: 'parse_error', message: 'blueprint parse error: the file holds more than one YAML document; keep one Blueprint per file', diagnostic: { line, col } });
  }
  const document = list[0];
  const syntax = document?.errors[0];
  if (syntax) {
    const position = syntax.linePos?.[0];
    throw blueprintError(blueprint.file, {
      code: 'parse_error',
      message: `blueprint parse error: ${syntax.message.split('\n')[0]}`,
      ...(position ? { diagnostic: { line: position.line, col: position.col } } : {}),
    });
  }
  const name = document?.get('name');
  if (typeof name !== 'string' || name === '') {
    throw blueprintError(blueprint.file, { code: 'parse_error', message: 'blueprint parse error: missing field `name` (a text value such as `name: support`)', diagnostic: { path: ['name'] } });
  }
  return name;
}

function lineCol(text: string, offset: number): { line: number; col: number } {
  const before = text.slice(0, offset).split('\n');
  return { line: before.length, col: before[before.length - 1].length + 1 };
}
