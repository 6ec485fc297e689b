// Built-ins: the fixed catalogue of namespaces and types in scope without an import, and
// their declarations, read from the TypeScript library declarations programs are checked
// against (ES2024 and the later built-ins svc provides), our own globals
// (sandbox/declarations, the web platform among them) and temporal-spec for Temporal.
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import type TypeScript from 'typescript';
import { ES_LIBRARIES, WEB_GLOBALS } from '../../sandbox/declarations/web-globals';
import { trimLibrary } from '../../sandbox/declarations/es-library';

export const BUILTIN_NAMESPACES = ['Intl', 'JSON', 'Math', 'Reflect', 'Temporal', 'console', 'crypto', 'navigator', 'performance'];
/** The ECMAScript types and svc's own error classes (the web platform's come from its table, WEB_GLOBALS). */
const LANGUAGE_TYPES = [
  'AggregateError', 'Array', 'ArrayBuffer', 'Awaited', 'BigInt', 'BigInt64Array', 'BigUint64Array', 'Boolean', 'DataView', 'Date', 'Error', 'EvalError', 'Exclude',
  'Extract', 'FinalizationRegistry', 'Float32Array', 'Float64Array', 'Function', 'Int16Array', 'Int32Array', 'Int8Array', 'Iterator', 'Map', 'NonNullable', 'Number',
  'Object', 'Omit', 'Parameters', 'Partial', 'PermissionDeniedError', 'Pick', 'Promise', 'Proxy', 'QuotaExceededError', 'RangeError', 'Readonly', 'Record',
  'ReferenceError', 'RegExp', 'Required', 'ReturnType', 'Set', 'String', 'Symbol', 'SyntaxError', 'TypeError', 'URIError', 'Uint16Array', 'Uint32Array', 'Uint8Array',
  'Uint8ClampedArray', 'WeakMap', 'WeakRef', 'WeakSet',
];
const isTypeName = (name: string) => name[0] >= 'A' && name[0] <= 'Z';
export const BUILTIN_TYPES = [...LANGUAGE_TYPES, ...WEB_GLOBALS.map((g) => g.name).filter(isTypeName)].sort();
/** Answered by builtins-docs though not listed. */
/** The global functions a program calls without an import (the web platform's among them). */
export const BUILTIN_FUNCTIONS = ['assert', 'atob', 'btoa', 'structuredClone', 'fetch', 'setTimeout', 'setInterval', 'clearTimeout', 'clearInterval', 'queueMicrotask', 'addEventListener', 'removeEventListener', 'dispatchEvent', 'reportError', 'parseInt', 'parseFloat', 'isNaN', 'isFinite', 'encodeURIComponent', 'decodeURIComponent', 'encodeURI', 'decodeURI'];
export const BUILTIN_VALUES = ['assert', 'atob', 'btoa', 'structuredClone', 'fetch', 'setTimeout', 'setInterval', 'clearTimeout', 'clearInterval', 'queueMicrotask', 'addEventListener', 'removeEventListener', 'dispatchEvent', 'reportError', 'parseInt', 'parseFloat', 'isNaN', 'isFinite', 'encodeURIComponent', 'decodeURIComponent', 'encodeURI', 'decodeURI', 'globalThis', 'NaN', 'Infinity', 'undefined'];

const require = createRequire(import.meta.url);
// TypeScript is large: load it on the first declarations lookup, not at server start.
let tsModule: typeof TypeScript | null = null;
const typescript = (): typeof TypeScript => (tsModule ??= require('typescript') as typeof TypeScript);

function repoFile(...parts: string[]): string {
  // From src/discovery (tsx) or dist/ (bundled server).
  const here = path.dirname(new URL(import.meta.url).pathname);
  for (const base of [path.join(here, '..', '..'), path.join(here, '..')]) {
    const candidate = path.join(base, ...parts);
    if (fs.existsSync(candidate)) return candidate;
  }
  throw new Error(`missing ${parts.join('/')}`);
}

interface Indexed {
  /** Top-level declarations by name (several interfaces merge). */
  byName: Map<string, TypeScript.Node[]>;
  text: Map<TypeScript.Node, string>;
}

let index: Indexed | null = null;

/** The ECMAScript library files programs are checked against (ES_LIBRARIES and what they reference), as the checker trims them. */
function libFiles(): Array<{ file: string; content: string }> {
  const dir = path.dirname(require.resolve('typescript/lib/lib.es5.d.ts'));
  const out = new Map<string, string>();
  const pending = [...ES_LIBRARIES];
  while (pending.length > 0) {
    const file = path.join(dir, `lib.${pending.pop()!}.d.ts`);
    if (out.has(file)) continue;
    const content = trimLibrary(typescript(), file, fs.readFileSync(file, 'utf8'));
    out.set(file, content);
    for (const reference of typescript().preProcessFile(content, true, true).libReferenceDirectives) pending.push(reference.fileName.toLowerCase());
  }
  return [...out].map(([file, content]) => ({ file, content }));
}

function nameOf(node: TypeScript.Node): string | null {
  if (typescript().isInterfaceDeclaration(node) || typescript().isTypeAliasDeclaration(node) || typescript().isClassDeclaration(node) || typescript().isFunctionDeclaration(node) || typescript().isModuleDeclaration(node)) return node.name?.getText() ?? null;
  if (typescript().isVariableStatement(node)) return node.declarationList.declarations[0]?.name.getText() ?? null;
  return null;
}

function load(): Indexed {
  if (index) return index;
  const byName = new Map<string, TypeScript.Node[]>();
  const text = new Map<TypeScript.Node, string>();
  const add = (file: string, content: string, within?: string) => {
    const source = typescript().createSourceFile(file, content, typescript().ScriptTarget.ES2022, true);
    const visit = (statements: TypeScript.NodeArray<TypeScript.Statement>) => {
      for (const statement of statements) {
        if (typescript().isModuleDeclaration(statement) && statement.name.getText() === 'Temporal' && within === 'Temporal' && statement.body && typescript().isModuleBlock(statement.body)) {
          byName.set('Temporal', [...(byName.get('Temporal') ?? []), statement]);
          text.set(statement, statement.getText());
          for (const inner of statement.body.statements) {
            const innerName = nameOf(inner);
            if (innerName) {
              byName.set(`Temporal.${innerName}`, [...(byName.get(`Temporal.${innerName}`) ?? []), inner]);
              text.set(inner, `declare namespace Temporal {\n  ${inner.getText()}\n}`);
            }
          }
          continue;
        }
        // `declare global { ... }` (lib.esnext.iterator is a module): its declarations are globals.
        if (typescript().isModuleDeclaration(statement) && statement.name.getText() === 'global' && statement.body && typescript().isModuleBlock(statement.body)) {
          visit(statement.body.statements);
          continue;
        }
        const name = nameOf(statement);
        if (!name) continue;
        byName.set(name, [...(byName.get(name) ?? []), statement]);
        text.set(statement, statement.getText());
      }
    };
    visit(source.statements);
  };
  for (const { file, content } of libFiles()) add(file, content);
  add('globals.d.ts', fs.readFileSync(repoFile('sandbox', 'declarations', 'globals.d.ts'), 'utf8'));
  // temporal-polyfill's types come from temporal-spec (its dependency); its exports hide the .d.ts path.
  add('temporal.d.ts', fs.readFileSync(path.join(path.dirname(require.resolve('temporal-spec')), 'index.d.ts'), 'utf8'), 'Temporal');
  index = { byName, text };
  return index;
}

/** Declarations of a catalogue name (with its `…Constructor` interface), or null. */
function whole(name: string): string | null {
  const { byName, text } = load();
  const nodes = [...(byName.get(name) ?? []), ...(byName.get(`${name}Constructor`) ?? [])];
  if (nodes.length === 0) return null;
  // `declare var console: Console;` — include the interface the variable is typed with.
  for (const node of [...nodes]) {
    const type = typescript().isVariableStatement(node) ? node.declarationList.declarations[0]?.type : undefined;
    const typeName = type && typescript().isTypeReferenceNode(type) ? type.typeName.getText() : null;
    if (typeName && typeName !== name) nodes.push(...(byName.get(typeName) ?? []));
  }
  const parts = nodes.map((n) => text.get(n)!);
  if (name === 'Function') parts.unshift('// Note: calling the Function constructor (or eval) is refused in svc programs.');
  return parts.join('\n\n');
}

/** `Math.max`, `Array.prototype.map`, `Temporal.Instant.from`: that member wrapped in its owner. */
/** Global objects declared as `declare var x: T` (and their typed members): look members up on T. */
const TYPED_OBJECTS: Readonly<Record<string, string>> = { console: 'Console', crypto: 'Crypto', 'crypto.subtle': 'SubtleCrypto', performance: 'Performance', navigator: 'Navigator' };

function member(pathText: string): string | null {
  const { byName, text } = load();
  if (byName.has(pathText)) return byName.get(pathText)!.map((n) => text.get(n)!).join('\n\n');
  if (TYPED_OBJECTS[pathText] && byName.has(TYPED_OBJECTS[pathText])) return byName.get(TYPED_OBJECTS[pathText])!.map((n) => text.get(n)!).join('\n\n');
  const typed = Object.keys(TYPED_OBJECTS).find((object) => pathText.startsWith(`${object}.`) && !pathText.slice(object.length + 1).includes('.'));
  if (typed) return member(`${TYPED_OBJECTS[typed]}.${pathText.slice(typed.length + 1)}`);
  const parts = pathText.split('.');
  const memberName = parts.pop()!;
  const ownerPath = parts.filter((p) => p !== 'prototype');
  const owner = ownerPath.join('.');
  const candidates = [...(byName.get(owner) ?? []), ...(byName.get(`${owner}Constructor`) ?? [])];
  const found: string[] = [];
  for (const node of candidates) {
    // `declare var Response: { json(...): Response; ... }`: the static side of a web-platform global (lib.webworker's form).
    const literal = typescript().isVariableStatement(node) ? node.declarationList.declarations[0]?.type : undefined;
    if (literal && typescript().isTypeLiteralNode(literal)) {
      for (const m of literal.members) if (m.name?.getText() === memberName) found.push(`declare var ${owner}: {\n  ${m.getText()}\n};`);
      continue;
    }
    const members = typescript().isInterfaceDeclaration(node) || typescript().isClassDeclaration(node) ? node.members : [];
    for (const m of members) {
      if (m.name?.getText() === memberName) {
        const head = typescript().isClassDeclaration(node) ? `declare class ${node.name?.getText()}` : `interface ${(node as TypeScript.InterfaceDeclaration).name.getText()}`;
        found.push(`${owner.includes('.') ? `declare namespace ${ownerPath[0]} {\n` : ''}${head} {\n  ${m.getText()}\n}${owner.includes('.') ? '\n}' : ''}`);
      }
    }
  }
  return found.length > 0 ? found.join('\n\n') : null;
}

export function builtinDeclarations(name: string): string | null {
  if (!name.includes('.')) {
    if (!BUILTIN_TYPES.includes(name) && !BUILTIN_NAMESPACES.includes(name) && !BUILTIN_VALUES.includes(name)) return null;
    return whole(name) ?? (BUILTIN_VALUES.includes(name) ? `declare var ${name}: unknown;` : null);
  }
  const root = name.split('.')[0];
  if (!BUILTIN_TYPES.includes(root) && !BUILTIN_NAMESPACES.includes(root)) return null;
  return member(name);
}

export function isBuiltinName(name: string): boolean {
  const root = name.split('.')[0];
  return BUILTIN_TYPES.includes(root) || BUILTIN_NAMESPACES.includes(root) || BUILTIN_VALUES.includes(root);
}

/** The prompt's `{builtins}` text. */
export function builtinsText(): string {
  return `${BUILTIN_TYPES.join(', ')}; namespaces ${BUILTIN_NAMESPACES.join(', ')}; functions ${BUILTIN_FUNCTIONS.join(', ')}`;
}
