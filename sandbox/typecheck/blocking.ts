// Which type errors block a run under `typecheck: on`. A checker is there to catch what
// would fail against svc's declarations before any side effect, never to refuse a working
// program: only a name, import or export that does not resolve, a member missing on a type
// svc declares (the standard library, the web platform, svc: modules, Packages, @mcp
// servers), arguments that cannot match a signature svc declares (not the ECMAScript library,
// whose functions coerce: `parseInt(n)` on a number works), and calling what svc declares
// not callable block. Every other diagnostic (an idiom TypeScript only guesses types for:
// `this.x` in a constructor, `new Date() - start`, a variable that changes type, fewer
// arguments to the program's own function) is a warning and the program runs.
import type TypeScript from 'typescript';

/** Codes of names that do not resolve (blocking in value positions). */
const UNRESOLVED_NAME = new Set([2304, 2552, 2580, 2581, 2582, 2591, 2592, 2593, 2662, 2663]);
/** Imports of exports a declared module does not have. */
const UNRESOLVED_EXPORT = new Set([2305, 2459, 2460, 2614, 2724]);
/** "Property 'x' does not exist on type …" (and with a suggestion). */
const MISSING_MEMBER = new Set([2339, 2551]);
/** "This expression is not callable / constructable." */
const NOT_CALLABLE = new Set([2348, 2349, 2351]);
/** Arguments that cannot match a signature: counts, types, object literal fields. */
const ARGUMENT = new Set([2322, 2326, 2345, 2353, 2375, 2379, 2554, 2555, 2556, 2559, 2561, 2739, 2740, 2741, 2769, 2820]);

export interface BlockingContext {
  ts: typeof TypeScript;
  checker: TypeScript.TypeChecker;
  file: TypeScript.SourceFile;
  /** Whether a file holds declarations svc gives (globals, web platform, svc: modules, Packages, @mcp servers). */
  isSvcDeclarationFile(fileName: string): boolean;
}

/** Whether `on` refuses the program for this diagnostic (otherwise it is a warning). */
export function blocks(context: BlockingContext, d: TypeScript.Diagnostic): boolean {
  if (d.start === undefined || d.file?.fileName !== context.file.fileName) return false;
  const node = nodeAt(context.ts, context.file, d.start);
  if (!node) return false;
  if (UNRESOLVED_NAME.has(d.code)) return !inTypePosition(context.ts, node) && !inTypeof(context.ts, node);
  if (UNRESOLVED_EXPORT.has(d.code)) return true;
  if (MISSING_MEMBER.has(d.code)) return missingMemberBlocks(context, node);
  if (NOT_CALLABLE.has(d.code)) return notCallableBlocks(context, node);
  if (ARGUMENT.has(d.code)) return argumentBlocks(context, node);
  return false;
}

/** The innermost node starting at `offset` (a token's start, as diagnostics give). */
function nodeAt(ts: typeof TypeScript, file: TypeScript.SourceFile, offset: number): TypeScript.Node | undefined {
  let found: TypeScript.Node | undefined;
  const descend = (node: TypeScript.Node): void => {
    if (node.getStart(file) === offset) found = node;
    ts.forEachChild(node, (child) => (child.pos <= offset && offset < child.end ? descend(child) : undefined));
  };
  descend(file);
  return found;
}

function inTypePosition(ts: typeof TypeScript, node: TypeScript.Node): boolean {
  let at: TypeScript.Node = node;
  while (at.parent && (ts.isIdentifier(at) || ts.isQualifiedName(at) || ts.isPropertyAccessExpression(at))) {
    const parent: TypeScript.Node = at.parent;
    if (ts.isTypeReferenceNode(parent) || ts.isTypeQueryNode(parent) || ts.isExpressionWithTypeArguments(parent) || ts.isQualifiedName(parent) || ts.isTypeNode(parent)) return true;
    if (!ts.isPropertyAccessExpression(parent) && !ts.isQualifiedName(parent)) return false;
    at = parent;
  }
  return false;
}

/** `typeof require`, `typeof process`: feature detection of a name that may not exist. */
function inTypeof(ts: typeof TypeScript, node: TypeScript.Node): boolean {
  return node.parent !== undefined && ts.isTypeOfExpression(node.parent);
}

function missingMemberBlocks(context: BlockingContext, node: TypeScript.Node): boolean {
  const { ts } = context;
  const access = node.parent;
  // Other places TypeScript reports a missing member (destructuring, a qualified type name) are left as warnings.
  if (!access || !(ts.isPropertyAccessExpression(access) && access.name === node)) return false;
  return declaredBySvc(context, access.expression);
}

function notCallableBlocks(context: BlockingContext, node: TypeScript.Node): boolean {
  const { ts } = context;
  for (let at: TypeScript.Node | undefined = node; at; at = at.parent) {
    if ((ts.isCallExpression(at) || ts.isNewExpression(at)) && at.expression.getStart(context.file) === node.getStart(context.file)) return declaredBySvc(context, at.expression);
  }
  return false;
}

/**
 * Whether the value's type is one svc declares (a library or declaration file, or a
 * primitive), not one TypeScript inferred from the program: the member or call signature
 * it lacks is certainly absent at run time. A union (TypeScript could not narrow) and a
 * variable whose type is only TypeScript's guess from its first value (an unannotated `let`,
 * `var` or parameter) may hold something else at run time.
 */
function declaredBySvc(context: BlockingContext, expression: TypeScript.Expression): boolean {
  const { ts, checker } = context;
  if (ts.isIdentifier(expression) && isGuessedVariable(context, expression)) return false;
  const type = checker.getTypeAtLocation(expression);
  return typeDeclaredOutsideProgram(context, type);
}

function typeDeclaredOutsideProgram(context: BlockingContext, type: TypeScript.Type): boolean {
  const { ts } = context;
  if (type.flags & (ts.TypeFlags.Any | ts.TypeFlags.Unknown | ts.TypeFlags.Never)) return false;
  if (type.isUnion()) return false;
  if (type.isIntersection()) return type.types.every((t) => typeDeclaredOutsideProgram(context, t));
  if (type.flags & (ts.TypeFlags.StringLike | ts.TypeFlags.NumberLike | ts.TypeFlags.BooleanLike | ts.TypeFlags.BigIntLike | ts.TypeFlags.ESSymbolLike)) return true;
  const symbol = type.aliasSymbol ?? type.getSymbol();
  const declarations = symbol?.getDeclarations() ?? [];
  if (declarations.length === 0) return false;
  return declarations.every((declaration) => declaration.getSourceFile().fileName !== context.file.fileName);
}

/**
 * An unannotated parameter, or an unannotated `let`/`var` the program assigns again: its
 * type is TypeScript's guess from a default or first value, and it may hold another.
 */
function isGuessedVariable(context: BlockingContext, identifier: TypeScript.Identifier): boolean {
  const { ts, checker } = context;
  const symbol = checker.getSymbolAtLocation(identifier);
  for (const declaration of symbol?.getDeclarations() ?? []) {
    if (declaration.getSourceFile().fileName !== context.file.fileName) continue;
    if (ts.isParameter(declaration) && !declaration.type) return true;
    if (ts.isVariableDeclaration(declaration) && !declaration.type && ts.isVariableDeclarationList(declaration.parent) && !(declaration.parent.flags & ts.NodeFlags.Const)) return isAssignedAgain(context, symbol!);
  }
  return false;
}

function isAssignedAgain(context: BlockingContext, symbol: TypeScript.Symbol): boolean {
  const { ts, checker } = context;
  const visit = (node: TypeScript.Node): boolean => {
    if (ts.isBinaryExpression(node) && node.operatorToken.kind >= ts.SyntaxKind.FirstAssignment && node.operatorToken.kind <= ts.SyntaxKind.LastAssignment && ts.isIdentifier(node.left) && checker.getSymbolAtLocation(node.left) === symbol) return true;
    return ts.forEachChild(node, visit) ?? false;
  };
  return visit(context.file);
}

/**
 * An argument error blocks when the call's signature is svc's: the node is the call's
 * callee or inside one of its arguments (not inside a function passed as one: an error
 * there is about that function's own body).
 */
function argumentBlocks(context: BlockingContext, node: TypeScript.Node): boolean {
  const { ts, checker } = context;
  for (let at: TypeScript.Node | undefined = node; at; at = at.parent) {
    if (ts.isFunctionLike(at) && at !== node) return false;
    const parent: TypeScript.Node | undefined = at.parent;
    if (!parent || !(ts.isCallExpression(parent) || ts.isNewExpression(parent))) continue;
    const isArgument = parent.arguments?.some((argument) => argument === at) ?? false;
    if (!isArgument && parent.expression !== at) continue;
    const declaration = checker.getResolvedSignature(parent)?.getDeclaration();
    const declarations = declaration ? [declaration] : (checker.getSymbolAtLocation(calleeName(ts, parent.expression))?.getDeclarations() ?? []);
    return declarations.length > 0 && declarations.every((d) => context.isSvcDeclarationFile(d.getSourceFile().fileName));
  }
  return false;
}

function calleeName(ts: typeof TypeScript, callee: TypeScript.Expression): TypeScript.Node {
  if (ts.isPropertyAccessExpression(callee)) return callee.name;
  if (ts.isElementAccessExpression(callee)) return callee.argumentExpression;
  return callee;
}
