// The declarations programs are checked against are as wide as the runtime, compared both
// ways through the real server: a program enumerates globalThis (each global's static and
// prototype members, along their chains) in a real isolate; every global the runtime
// provides is declared, and every declared web-platform or svc global, and each member its
// declarations give, exists at run time. The built globals.d.ts is what the generator
// makes of the table (sandbox/declarations/web-globals.ts).
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { registerBlueprint } from '../support/sessions';
import { repoRoot, startServer, type TestServer } from '../harness';
import { declaredGlobalMembers, declaredGlobalValues } from '../../sandbox/typecheck/checker';
import { OMITTED_TYPE_MEMBERS, WEB_GLOBALS } from '../../sandbox/declarations/web-globals';
import { globalsSource } from '../../scripts/declarations';

/** Every global's own names, its static chain's and (a constructor) its prototype chain's, or (an object) its prototype chain's. */
const ENUMERATE = `export function main() {
  // Naming Temporal here has the runner install it, as for any program that uses it.
  const chain = (start, stop) => { const names = []; for (let o = start; o && o !== stop; o = Object.getPrototypeOf(o)) names.push(...Object.getOwnPropertyNames(o)); return names; };
  const out = {};
  for (const name of Object.getOwnPropertyNames(globalThis)) {
    const value = globalThis[name];
    const statics = value && (typeof value === "object" || typeof value === "function") ? chain(value, typeof value === "function" ? Function.prototype : Object.prototype) : [];
    const instance = typeof value === "function" && value.prototype ? chain(value.prototype, Object.prototype) : [];
    out[name] = { statics, instance };
  }
  // Interfaces reached through a global: crypto.subtle.
  out["crypto.subtle"] = { statics: chain(crypto.subtle, Object.prototype), instance: [] };
  // Attributes that live on each instance rather than the prototype (isTrusted is [LegacyUnforgeable]; lastIndex and stack are own data properties).
  const own = { Event: new Event("x"), RegExp: /x/, TextDecoderStream: new TextDecoderStream(), TextEncoderStream: new TextEncoderStream(), AggregateError: new AggregateError([], "x", { cause: 1 }) };
  for (const name of ["Error", "EvalError", "RangeError", "ReferenceError", "SyntaxError", "TypeError", "URIError"]) own[name] = new globalThis[name]("x", { cause: 1 });
  for (const [name, instance] of Object.entries(own)) out[name].instance.push(...Object.getOwnPropertyNames(instance));
  // What every object and function inherits (the chains above stop short of them).
  out["Object.prototype"] = { statics: Object.getOwnPropertyNames(Object.prototype), instance: [] };
  out["Function.prototype"] = { statics: Object.getOwnPropertyNames(Function.prototype), instance: [] };
  return out;
}`;

/** Names V8 has that TypeScript's libraries do not declare as globals (Annex B, engine internals). */
const UNDECLARED_BY_DESIGN = new Set<string>([]);

/** Globals whose members are not compared: globalThis (its members are the globals, compared one by one) and the primitives. */
const NOT_COMPARED = new Set(['globalThis', 'NaN', 'Infinity', 'undefined']);

interface Declared {
  statics: string[];
  instance: string[];
}

/** Each declared global of globals.d.ts with the members its declarations give (static side, instance side). */
function declaredMembers(): Map<string, Declared> {
  const file = ts.createSourceFile('globals.d.ts', fs.readFileSync(path.join(repoRoot, 'sandbox', 'declarations', 'globals.d.ts'), 'utf8'), ts.ScriptTarget.ESNext, true);
  const interfaces = new Map<string, string[]>();
  const memberNames = (members: ts.NodeArray<ts.TypeElement | ts.ClassElement>) =>
    members.flatMap((m) => (m.name && !ts.isComputedPropertyName(m.name) && !ts.isConstructorDeclaration(m) ? [m.name.getText(file).replace(/^["']|["']$/g, '')] : []));
  for (const statement of file.statements) {
    if (ts.isInterfaceDeclaration(statement)) interfaces.set(statement.name.text, [...(interfaces.get(statement.name.text) ?? []), ...memberNames(statement.members)]);
  }
  const declared = new Map<string, Declared>();
  for (const statement of file.statements) {
    if (ts.isVariableStatement(statement)) {
      const declaration = statement.declarationList.declarations[0];
      const name = declaration.name.getText(file);
      const type = declaration.type;
      if (type && ts.isTypeLiteralNode(type)) declared.set(name, { statics: memberNames(type.members).filter((m) => m !== 'prototype'), instance: interfaces.get(name) ?? [] });
      else if (type && ts.isTypeReferenceNode(type)) declared.set(name, { statics: interfaces.get(type.typeName.getText(file)) ?? [], instance: [] });
    } else if (ts.isFunctionDeclaration(statement) && statement.name) {
      declared.set(statement.name.text, { statics: [], instance: [] });
    } else if (ts.isClassDeclaration(statement) && statement.name) {
      const members = statement.members.filter((m) => !ts.isConstructorDeclaration(m));
      const isStatic = (m: ts.ClassElement) => ts.canHaveModifiers(m) && (ts.getModifiers(m) ?? []).some((k) => k.kind === ts.SyntaxKind.StaticKeyword);
      // Instance fields (not methods) live on instances, not the prototype: only methods and accessors are compared.
      const onPrototype = members.filter((m) => !isStatic(m) && (ts.isMethodDeclaration(m) || ts.isGetAccessor(m)));
      declared.set(statement.name.text, { statics: memberNames(ts.factory.createNodeArray(members.filter(isStatic))), instance: memberNames(ts.factory.createNodeArray(onPrototype)) });
    }
  }
  // Interfaces reached through a global.
  declared.set('crypto.subtle', { statics: interfaces.get('SubtleCrypto') ?? [], instance: [] });
  return declared;
}

describe('declarations and the runtime', () => {
  let server: TestServer;
  let runtime: Record<string, { statics: string[]; instance: string[] }>;
  before(async () => {
    server = await startServer();
    await registerBlueprint(server, 'name: open\ndefault: allow\ntypecheck: off\n');
    const reply = await server.request('POST', '/v1/execute', { token: server.userToken, body: { blueprint: 'open', code: ENUMERATE } });
    assert.equal(reply.json.error, null, reply.text);
    runtime = JSON.parse(reply.json.result);
  });
  after(async () => {
    await server.stop();
  });

  test('the built globals.d.ts is what the generator makes of the table (the build remakes it when a source is newer)', () => {
    assert.equal(fs.readFileSync(path.join(repoRoot, 'sandbox', 'declarations', 'globals.d.ts'), 'utf8'), globalsSource());
  });

  test('every global the runtime provides is declared', () => {
    const declared = declaredGlobalValues();
    const missing = Object.keys(runtime).filter((name) => !name.includes('.')).filter((name) => !declared.has(name) && !UNDECLARED_BY_DESIGN.has(name));
    assert.deepEqual(missing, [], `globals the runtime provides but the declarations lack (add them to sandbox/declarations/web-globals.ts): ${missing.join(', ')}`);
  });

  test('every declared web-platform and svc global exists at run time, with every member its declarations give', () => {
    const declared = declaredMembers();
    const names = [...WEB_GLOBALS.map((g) => g.name), 'crypto.subtle', 'assert', 'PermissionDeniedError', 'QuotaExceededError', 'navigator'];
    const problems: string[] = [];
    for (const name of names) {
      const members = declared.get(name);
      if (!members) {
        problems.push(`${name}: not in globals.d.ts`);
        continue;
      }
      const found = runtime[name];
      if (!found) {
        problems.push(`${name}: declared, absent at run time`);
        continue;
      }
      for (const member of members.statics) if (!found.statics.includes(member)) problems.push(`${name}.${member}`);
      for (const member of members.instance) if (!found.instance.includes(member)) problems.push(`${name}.prototype.${member}`);
    }
    assert.deepEqual(problems, [], `declared but absent at run time (list them under \`omit\` in web-globals.ts until the runtime has them): ${problems.join(', ')}`);
  });

  test('every member the ECMAScript declarations (and Temporal) give exists at run time: no built-in is declared that the engine and core-js lack', () => {
    // Members TypeScript declares that no object has: the abstract Iterator's next/return/throw, a function's own prototype.
    const abstract = new Set(['Iterator.prototype.next', 'Iterator.prototype.return', 'Iterator.prototype.throw', 'Function.prototype.prototype']);
    const web = new Set([...WEB_GLOBALS.map((g) => g.name), 'assert', 'PermissionDeniedError', 'QuotaExceededError', 'navigator']);
    const inherited = new Set([...runtime['Object.prototype'].statics, ...runtime['Function.prototype'].statics]);
    const problems: string[] = [];
    for (const [name, members] of declaredGlobalMembers()) {
      if (web.has(name) || NOT_COMPARED.has(name)) continue;
      const found = runtime[name];
      if (!found) {
        problems.push(`${name}: declared, absent at run time`);
        continue;
      }
      for (const member of members.statics) if (!found.statics.includes(member) && !inherited.has(member)) problems.push(`${name}.${member}`);
      for (const member of members.instance) if (!found.instance.includes(member) && !inherited.has(member)) problems.push(`${name}.prototype.${member}`);
    }
    problems.splice(0, problems.length, ...problems.filter((p) => !abstract.has(p)));
    assert.deepEqual(problems, [], `declared but absent at run time (narrow ES_LIBRARIES in web-globals.ts, or provide them in sandbox/prelude/builtins.ts): ${problems.join(', ')}`);
  });

  test('the ES2024 and later built-ins the runtime provides are declared', () => {
    const declared = declaredGlobalMembers();
    const expected: Array<[string, 'statics' | 'instance', string]> = [
      ['Object', 'statics', 'groupBy'], ['Map', 'statics', 'groupBy'], ['Promise', 'statics', 'withResolvers'], ['Promise', 'statics', 'try'],
      ['Array', 'statics', 'fromAsync'], ['RegExp', 'statics', 'escape'], ['Iterator', 'statics', 'from'],
      ...['union', 'intersection', 'difference', 'symmetricDifference', 'isSubsetOf', 'isSupersetOf', 'isDisjointFrom'].map((m): [string, 'instance', string] => ['Set', 'instance', m]),
    ];
    const problems = expected.filter(([name, side, member]) => runtime[name]?.[side].includes(member) && !declared.get(name)?.[side].includes(member)).map(([name, side, member]) => `${name}${side === 'instance' ? '.prototype' : ''}.${member}`);
    const absent = expected.filter(([name, side, member]) => !runtime[name]?.[side].includes(member)).map(([name, , member]) => `${name}: ${member}`);
    assert.deepEqual(absent, [], 'the runtime should provide these');
    assert.deepEqual(problems, [], `provided at run time, not declared: ${problems.join(', ')}`);
  });

  test('no member the runtime provides stays omitted from the declarations (the omit lists stay true)', () => {
    const present: string[] = [];
    for (const global of WEB_GLOBALS) {
      const found = runtime[global.name];
      for (const member of global.omit ?? []) if (found && (found.statics.includes(member) || found.instance.includes(member))) present.push(`${global.name}: ${member}`);
    }
    for (const member of OMITTED_TYPE_MEMBERS.SubtleCrypto ?? []) if (runtime['crypto.subtle']?.statics.includes(member)) present.push(`SubtleCrypto: ${member}`);
    assert.deepEqual(present, [], `the runtime now provides these: remove them from \`omit\` in web-globals.ts and run \`npm run generate\`: ${present.join(', ')}`);
  });
});
