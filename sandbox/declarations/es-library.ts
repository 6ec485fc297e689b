// TypeScript's ECMAScript library files as the checker reads them: less the global values the
// runtime removes and the members V8 lacks that svc does not provide (web-globals.ts lists
// both). Their types stay: other declarations refer to them (ArrayBufferLike names
// SharedArrayBuffer).
import type TypeScript from 'typescript';
import { ES_ABSENT_VALUES, ES_OMITTED_MEMBERS } from './web-globals';

/**
 * Whether the text may hold a declaration trimLibrary cuts: a variable statement naming an
 * absent value or an interface with omitted members. Most library files hold neither (4 of
 * the 73 the checker reads) and are then not parsed a second time: that parse was about a
 * tenth of a checker thread's first check.
 */
const MAY_NEED_CUTS = new RegExp(`\\b(?:var|let|const)\\s+(?:${ES_ABSENT_VALUES.join('|')})\\b|\\binterface\\s+(?:${Object.keys(ES_OMITTED_MEMBERS).join('|')})\\b`);

/** The library file's text without the absent values' declarations and the omitted interface members. */
export function trimLibrary(ts: typeof TypeScript, fileName: string, text: string): string {
  if (!MAY_NEED_CUTS.test(text)) return text;
  const file = ts.createSourceFile(fileName, text, ts.ScriptTarget.ESNext, true);
  const cuts: Array<[number, number]> = [];
  for (const statement of file.statements) {
    if (ts.isVariableStatement(statement)) {
      const name = statement.declarationList.declarations[0]?.name;
      if (name && ts.isIdentifier(name) && ES_ABSENT_VALUES.includes(name.text)) cuts.push([statement.getFullStart(), statement.getEnd()]);
    } else if (ts.isInterfaceDeclaration(statement)) {
      const omitted = ES_OMITTED_MEMBERS[statement.name.text];
      if (!omitted) continue;
      for (const member of statement.members) {
        if (member.name && ts.isIdentifier(member.name) && omitted.includes(member.name.text)) cuts.push([member.getFullStart(), member.getEnd()]);
      }
    }
  }
  if (cuts.length === 0) return text;
  let out = '';
  let at = 0;
  for (const [start, end] of cuts) {
    out += text.slice(at, start);
    at = end;
  }
  return out + text.slice(at);
}
