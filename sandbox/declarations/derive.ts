// Derives the web-platform declarations from TypeScript's own lib.webworker files, limited
// to the globals svc provides (web-globals.ts): each listed global's `declare var` or
// `declare function`, the interfaces and type aliases they refer to (transitively, as
// types only: a type reached this way has no value unless it is listed itself), without
// the members the table omits. The text is kept with its documentation, in the library's
// order. The build (scripts/build/declarations.mjs) writes it, after svc.d.ts, into globals.d.ts.
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import type TypeScript from 'typescript';
import { OMITTED_TYPE_MEMBERS, STUB_TYPES, WEB_GLOBALS, WIDENED_TYPE_ALIASES, type WebGlobal } from './web-globals';

const require = createRequire(import.meta.url);
const LIBRARY_FILES = ['lib.webworker.d.ts', 'lib.webworker.iterable.d.ts', 'lib.webworker.asynciterable.d.ts'];

interface Indexed {
  types: Map<string, TypeScript.Statement[]>;
  values: Map<string, TypeScript.Statement[]>;
  order: Map<TypeScript.Statement, number>;
}

function index(ts: typeof TypeScript, files: TypeScript.SourceFile[]): Indexed {
  const types = new Map<string, TypeScript.Statement[]>();
  const values = new Map<string, TypeScript.Statement[]>();
  const order = new Map<TypeScript.Statement, number>();
  const add = (map: Map<string, TypeScript.Statement[]>, name: string, statement: TypeScript.Statement) => map.set(name, [...(map.get(name) ?? []), statement]);
  for (const file of files) {
    for (const statement of file.statements) {
      order.set(statement, order.size);
      if (ts.isInterfaceDeclaration(statement) || ts.isTypeAliasDeclaration(statement)) add(types, statement.name.text, statement);
      else if (ts.isFunctionDeclaration(statement) && statement.name) add(values, statement.name.text, statement);
      else if (ts.isVariableStatement(statement)) {
        const name = statement.declarationList.declarations[0]?.name;
        if (name && ts.isIdentifier(name)) add(values, name.text, statement);
      }
    }
  }
  return { types, values, order };
}

function memberName(ts: typeof TypeScript, member: TypeScript.TypeElement): string | null {
  const name = member.name;
  if (!name) return null;
  if (ts.isIdentifier(name) || ts.isStringLiteral(name) || ts.isPrivateIdentifier(name)) return name.text;
  return name.getText();
}

/** The leftmost identifier of a type or value reference (`A.B` -> `A`). */
function leftmost(ts: typeof TypeScript, name: TypeScript.EntityName | TypeScript.Expression): string | null {
  let at: TypeScript.Node = name;
  while (ts.isQualifiedName(at) || ts.isPropertyAccessExpression(at)) at = ts.isQualifiedName(at) ? at.left : at.expression;
  return ts.isIdentifier(at) ? at.text : null;
}

/** The web-platform declarations for `globals` (default: the table), as one text. */
export function deriveWebDeclarations(ts: typeof TypeScript, globals: readonly WebGlobal[] = WEB_GLOBALS, omittedTypeMembers: Readonly<Record<string, readonly string[]>> = OMITTED_TYPE_MEMBERS): string {
  const directory = path.dirname(require.resolve('typescript/lib/lib.webworker.d.ts'));
  const files = LIBRARY_FILES.map((name) => ts.createSourceFile(name, fs.readFileSync(path.join(directory, name), 'utf8'), ts.ScriptTarget.ESNext, true));
  const { types, values, order } = index(ts, files);

  // Omissions by interface name: the table's own (a global's interface, or the interface its `declare var` names) and the nested ones.
  const omitted = new Map<string, Set<string>>(Object.entries(omittedTypeMembers).map(([name, members]) => [name, new Set(members)]));
  const staticOmitted = new Map<string, Set<string>>();
  for (const global of globals) {
    const statements = values.get(global.name);
    if (!statements) throw new Error(`web-globals.ts: lib.webworker declares no global '${global.name}'`);
    if (!global.omit?.length) continue;
    const targets = new Set([global.name]);
    for (const statement of statements) {
      const type = ts.isVariableStatement(statement) ? statement.declarationList.declarations[0].type : undefined;
      if (type && ts.isTypeReferenceNode(type)) targets.add(leftmost(ts, type.typeName)!);
    }
    for (const target of targets) omitted.set(target, new Set([...(omitted.get(target) ?? []), ...global.omit]));
    staticOmitted.set(global.name, new Set(global.omit));
  }

  const kept = new Set<TypeScript.Statement>();
  const pendingTypes: string[] = [];
  const keepMembers = (owner: string, members: TypeScript.NodeArray<TypeScript.TypeElement>, table: Map<string, Set<string>>) =>
    members.filter((member) => !table.get(owner)?.has(memberName(ts, member) ?? ''));
  /** Every node of a statement that survives the omissions. */
  const visitKept = (statement: TypeScript.Statement, owner: string, visit: (node: TypeScript.Node) => void) => {
    if (ts.isInterfaceDeclaration(statement)) {
      statement.typeParameters?.forEach(visit);
      statement.heritageClauses?.forEach(visit);
      keepMembers(owner, statement.members, omitted).forEach(visit);
    } else if (ts.isVariableStatement(statement)) {
      const type = statement.declarationList.declarations[0].type;
      if (type && ts.isTypeLiteralNode(type)) keepMembers(owner, type.members, staticOmitted).forEach(visit);
      else if (type) visit(type);
    } else visit(statement);
  };
  const collect = (statement: TypeScript.Statement, owner: string) => {
    if (kept.has(statement)) return;
    kept.add(statement);
    const visit = (node: TypeScript.Node): void => {
      if (ts.isTypeReferenceNode(node)) pendingTypes.push(leftmost(ts, node.typeName) ?? '');
      else if (ts.isExpressionWithTypeArguments(node)) pendingTypes.push(leftmost(ts, node.expression) ?? '');
      else if (ts.isTypeQueryNode(node)) pendingTypes.push(leftmost(ts, node.exprName) ?? '');
      ts.forEachChild(node, visit);
    };
    visitKept(statement, owner, visit);
  };
  for (const global of globals) {
    for (const statement of values.get(global.name)!) collect(statement, global.name);
    pendingTypes.push(global.name);
  }
  const seen = new Set<string>(STUB_TYPES);
  while (pendingTypes.length > 0) {
    const name = pendingTypes.pop()!;
    if (seen.has(name)) continue;
    seen.add(name);
    for (const statement of types.get(name) ?? []) collect(statement, name);
  }

  const out: string[] = STUB_TYPES.map((name) => `/** Not provided by svc; declared empty because other declarations mention it. */\ninterface ${name} {}`);
  const added = new Map(globals.filter((g) => g.addStatics?.length).map((g) => [g.name, g.addStatics!]));
  for (const statement of [...kept].sort((a, b) => order.get(a)! - order.get(b)!)) out.push(print(ts, statement, omitted, staticOmitted, added));
  return `${out.join('\n')}\n`;
}

/** The statement's text with its documentation, less its omitted members. */
function print(ts: typeof TypeScript, statement: TypeScript.Statement, omitted: Map<string, Set<string>>, staticOmitted: Map<string, Set<string>>, added: Map<string, readonly string[]>): string {
  const file = statement.getSourceFile();
  if (ts.isTypeAliasDeclaration(statement) && Object.hasOwn(WIDENED_TYPE_ALIASES, statement.name.text)) {
    return `type ${statement.name.text} = ${WIDENED_TYPE_ALIASES[statement.name.text]};`;
  }
  let members: TypeScript.NodeArray<TypeScript.TypeElement> | undefined;
  let drop: Set<string> | undefined;
  let additions: readonly string[] = [];
  if (ts.isInterfaceDeclaration(statement)) {
    members = statement.members;
    drop = omitted.get(statement.name.text);
  } else if (ts.isVariableStatement(statement)) {
    const declaration = statement.declarationList.declarations[0];
    if (declaration.type && ts.isTypeLiteralNode(declaration.type) && ts.isIdentifier(declaration.name)) {
      members = declaration.type.members;
      drop = staticOmitted.get(declaration.name.text);
      additions = added.get(declaration.name.text) ?? [];
    }
  }
  const start = statement.getFullStart();
  let text = '';
  let at = start;
  for (const member of members ?? []) {
    if (!drop?.has(memberName(ts, member) ?? '')) continue;
    text += file.text.slice(at, member.getFullStart());
    at = member.getEnd();
  }
  // Added statics go after the library's last member, inside the type literal.
  if (additions.length > 0 && members) {
    text += file.text.slice(at, members.end);
    at = members.end;
    for (const addition of additions) text += `\n    ${addition}`;
  }
  text += file.text.slice(at, statement.getEnd());
  // The library's first statement carries its licence header: the generated file names its source once instead.
  return text.replace(/^\s*\/\*![\s\S]*?\*\/\s*/, '').replace(/^\s*\n/, '');
}
