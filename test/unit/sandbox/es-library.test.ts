// The checker's ECMAScript library files (sandbox/declarations/es-library.ts): trimLibrary
// skips the parse of a file whose text cannot hold what it cuts. Each file the checker reads
// is parsed here in full: a file holding an absent value's declaration or an interface with
// omitted members comes back without them, and every other file comes back unchanged.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import ts from 'typescript';
import { trimLibrary } from '../../../sandbox/declarations/es-library';
import { ES_ABSENT_VALUES, ES_LIBRARIES, ES_OMITTED_MEMBERS } from '../../../sandbox/declarations/web-globals';

const require = createRequire(import.meta.url);
const directory = path.dirname(require.resolve('typescript/lib/lib.es2023.d.ts'));

/** The library files the checker reads: ES_LIBRARIES and every file they reference. */
function libraryTexts(): Map<string, string> {
  const texts = new Map<string, string>();
  const pending = [...ES_LIBRARIES];
  while (pending.length > 0) {
    const name = pending.pop()!;
    if (texts.has(name)) continue;
    const text = fs.readFileSync(path.join(directory, `lib.${name}.d.ts`), 'utf8');
    texts.set(name, text);
    for (const reference of ts.createSourceFile(name, text, ts.ScriptTarget.ESNext).libReferenceDirectives) pending.push(reference.fileName.toLowerCase());
  }
  return texts;
}

/** What a full parse finds to cut: absent values' variable statements and omitted interface members, by name. */
function cuttable(name: string, text: string): string[] {
  const found: string[] = [];
  for (const statement of ts.createSourceFile(name, text, ts.ScriptTarget.ESNext, true).statements) {
    if (ts.isVariableStatement(statement)) {
      const declared = statement.declarationList.declarations[0]?.name;
      if (declared && ts.isIdentifier(declared) && ES_ABSENT_VALUES.includes(declared.text)) found.push(declared.text);
    } else if (ts.isInterfaceDeclaration(statement)) {
      for (const member of statement.members) {
        if (member.name && ts.isIdentifier(member.name) && ES_OMITTED_MEMBERS[statement.name.text]?.includes(member.name.text)) found.push(`${statement.name.text}.${member.name.text}`);
      }
    }
  }
  return found;
}

test('every library file with something to cut is trimmed of it, and every other file comes back unchanged', () => {
  const texts = libraryTexts();
  assert.ok(texts.size > 20, `the checker reads the ES library files (${texts.size})`);
  const trimmed: string[] = [];
  for (const [name, text] of texts) {
    const out = trimLibrary(ts, name, text);
    if (cuttable(name, text).length === 0) {
      assert.equal(out, text, `lib.${name}.d.ts has nothing to cut`);
      continue;
    }
    trimmed.push(name);
    assert.deepEqual(cuttable(name, out), [], `lib.${name}.d.ts keeps nothing it should lose`);
    assert.ok(out.length < text.length);
  }
  // SharedArrayBuffer and Atomics (es2017.sharedmemory), ArrayBuffer's transfer (es2024.arraybuffer).
  assert.ok(trimmed.includes('es2017.sharedmemory') && trimmed.includes('es2024.arraybuffer'), trimmed.join(', '));
});
