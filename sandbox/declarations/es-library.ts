// TypeScript's ECMAScript library files as the checker reads them: less the global values the
// runtime removes and the members V8 lacks that svc does not provide (web-globals.ts lists
// both). Their types stay: other declarations refer to them (ArrayBufferLike names
// SharedArrayBuffer).
import type TypeScript from 'typescript';
import { ES_ABSENT_VALUES, ES_OMITTED_MEMBERS } from './web-globals';

/**
 * Whether the text may hold a declaration trimLibrary cuts: a variable statement naming an
 * absent value, or an interface with omitted members that names one of them. Most library
 * files hold neither (2 of the 73 the checker reads; es5's ArrayBuffer has no transfer) and
 * are then not parsed a second time: that parse was about a fifth of a checker thread's
 * first check.
 */
const words = (names: readonly string[]) => new RegExp(`\\b(?:${names.join('|')})\\b`);
const ABSENT_VALUE_STATEMENT = new RegExp(`\\b(?:var|let|const)\\s+${words(ES_ABSENT_VALUES).source}`);
const OMITTING_INTERFACES = Object.entries(ES_OMITTED_MEMBERS).map(([name, members]) => ({ declared: new RegExp(`\\binterface\\s+${name}\\b`), member: words(members) }));
const mayNeedCuts = (text: string) => ABSENT_VALUE_STATEMENT.test(text) || OMITTING_INTERFACES.some(({ declared, member }) => declared.test(text) && member.test(text));

/** The library file's text without the absent values' declarations and the omitted interface members. */
export function trimLibrary(ts: typeof TypeScript, fileName: string, text: string): string {
  if (!mayNeedCuts(text)) return text;
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
