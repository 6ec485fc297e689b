// Reading the YAML config file: strict keys at every level, scalars kept with the text
// as written (so `1e3` can be refused as a count even though YAML reads a number).
import fs from 'node:fs';
import path from 'node:path';
import { isAlias, isMap, isScalar, isSeq, parseDocument, type Document, type Node } from 'yaml';
import { invalid } from './errors';

/** A file value: scalars carry their source text; maps and lists are plain. */
export type FileValue = { kind: 'scalar'; value: unknown; text: string } | { kind: 'map'; entries: Map<string, FileValue> } | { kind: 'list'; items: FileValue[] };

export interface ConfigFile {
  path: string;
  directory: string;
  root: Map<string, FileValue>;
}

function convert(node: Node | null, where: string, doc: Document): FileValue {
  if (node === null || node === undefined) return { kind: 'scalar', value: null, text: '' };
  // Anchors and aliases are ordinary YAML; an alias stands for the node it names.
  if (isAlias(node)) return convert((node.resolve(doc) ?? null) as Node | null, where, doc);
  if (isScalar(node)) return { kind: 'scalar', value: node.value, text: node.source ?? String(node.value) };
  if (isMap(node)) {
    const entries = new Map<string, FileValue>();
    for (const pair of node.items) {
      const key = isScalar(pair.key) ? String(pair.key.value) : String(pair.key);
      entries.set(key, convert(pair.value as Node | null, where ? `${where}.${key}` : key, doc));
    }
    return { kind: 'map', entries };
  }
  if (isSeq(node)) return { kind: 'list', items: node.items.map((item, i) => convert(item as Node | null, `${where}[${i}]`, doc)) };
  throw invalid(`config \`${where}\`: unsupported YAML value`);
}

export function readConfigFile(file: string): ConfigFile {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    throw invalid(`cannot read config file ${file}: ${(error as Error).message}`);
  }
  const doc = parseDocument(text);
  if (doc.errors.length > 0) throw invalid(`config file ${file} is not valid YAML: ${doc.errors[0].message}`);
  const contents = doc.contents as Node | null;
  const directory = path.dirname(path.resolve(file));
  if (contents === null || (isScalar(contents) && contents.value === null)) return { path: file, directory, root: new Map() };
  if (!isMap(contents)) throw invalid(`config file ${file}: the top level must be a mapping of settings`);
  const root = convert(contents, '', doc);
  return { path: file, directory, root: (root as { entries: Map<string, FileValue> }).entries };
}

/** Refuses keys outside `accepted`, naming the key and the accepted ones. */
export function checkKeys(entries: Map<string, FileValue>, accepted: readonly string[], where: string): void {
  for (const key of entries.keys()) {
    if (!accepted.includes(key)) {
      const place = where ? `\`${where}\`` : 'the top level';
      throw invalid(`config file: unknown key \`${where ? `${where}.` : ''}${key}\` in ${place}; accepted keys: ${accepted.join(', ')}`);
    }
  }
}

export function asMap(value: FileValue, where: string): Map<string, FileValue> {
  if (value.kind !== 'map') throw invalid(`config \`${where}\`: expected a mapping`);
  return value.entries;
}

export function asList(value: FileValue, where: string): FileValue[] {
  if (value.kind !== 'list') throw invalid(`config \`${where}\`: expected a list`);
  return value.items;
}

export function asString(value: FileValue, where: string): string {
  if (value.kind !== 'scalar' || typeof value.value !== 'string') throw invalid(`config \`${where}\`: expected text`);
  return value.value;
}

export function asBoolean(value: FileValue, where: string): boolean {
  if (value.kind !== 'scalar' || typeof value.value !== 'boolean') throw invalid(`config \`${where}\`: expected \`true\` or \`false\``);
  return value.value;
}

/** The scalar's text as written (numbers included). */
export function scalarText(value: FileValue, where: string): string {
  if (value.kind !== 'scalar' || value.value === null || typeof value.value === 'object') throw invalid(`config \`${where}\`: expected a single value`);
  return value.text;
}

/** The YAML type of a scalar as read (`string`, `number`, `boolean`), for settings that need one. */
export function scalarType(value: FileValue): string {
  return value.kind === 'scalar' ? typeof value.value : value.kind;
}
