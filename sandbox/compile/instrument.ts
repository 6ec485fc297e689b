// Fuel and stack metering inserted into esbuild's JavaScript output: each region (the unit's top level, every function body, every loop iteration)
// charges its ESTree node count to a closure-local counter; ordinary functions that make calls count
// depth; every catch clause first asks the runtime whether the caught value ends the run.
import type { Node } from 'acorn';

type AnyNode = Node & Record<string, any>;

const FUNCTION_TYPES = new Set(['FunctionDeclaration', 'FunctionExpression', 'ArrowFunctionExpression']);
const LOOP_TYPES = new Set(['ForStatement', 'ForInStatement', 'ForOfStatement', 'WhileStatement', 'DoWhileStatement']);

// `__svc_refill` ends the run when the whole budget is spent (see compile.ts).
export const chargeCode = (units: number) => `if ((__svc_fuel -= ${units}) < 0) __svc_refill();`;
const ENTER_CODE = 'if (++__svc_depth > __svc_maxDepth) __svc_rt.stackOut(__svc_reserve + __svc_fuel);';

/**
 * The node's children, appended to `out` (no spread: a 150,000-element array literal would
 * pass 150,000 arguments and overflow the stack). Every walk here is iterative, so the
 * nesting of a program costs heap, never call stack.
 */
/** Every node in pre-order, children in source order, iteratively (a program's nesting must not cost call stack). */
export function walk(root: AnyNode, visit: (node: AnyNode) => void): void {
  const pending: AnyNode[] = [root];
  const children: AnyNode[] = [];
  while (pending.length > 0) {
    const node = pending.pop()!;
    visit(node);
    children.length = 0;
    childNodes(node, children);
    for (let i = children.length - 1; i >= 0; i--) pending.push(children[i]);
  }
}

export function childNodes(node: AnyNode, out: AnyNode[] = []): AnyNode[] {
  for (const key of Object.keys(node)) {
    if (key === 'type' || key === 'start' || key === 'end' || key === 'loc' || key === 'range') continue;
    const value = node[key];
    if (Array.isArray(value)) {
      for (const item of value) if (item && typeof item.type === 'string') out.push(item);
    } else if (value && typeof value.type === 'string') out.push(value);
  }
  return out;
}

/** Nodes of a region: counts itself and descends, except into nested functions and loops. */
function countRegion(roots: AnyNode[]): number {
  return Math.max(1, countNodes(roots));
}

/** The nodes countRegion counts, without its floor of one (a region's parts add up). */
export function countNodes(roots: AnyNode[]): number {
  let count = 0;
  const stack = [...roots];
  while (stack.length > 0) {
    const node = stack.pop()!;
    count++;
    if (FUNCTION_TYPES.has(node.type) || LOOP_TYPES.has(node.type)) continue;
    childNodes(node, stack);
  }
  return count;
}

const CALL_TYPES = new Set(['CallExpression', 'NewExpression', 'TaggedTemplateExpression', 'ImportExpression']);

/**
 * Whether a function body calls anything itself (nested functions and their bodies aside).
 * A function that does not is a leaf: it adds one frame and no more, so it skips the depth
 * counter and its try/finally. Functions reached implicitly (getters, valueOf, iterators)
 * count their own depth; native overflow still ends as stack_exhausted.
 */
function makesCalls(roots: AnyNode[]): boolean {
  const stack = [...roots];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (CALL_TYPES.has(node.type)) return true;
    if (FUNCTION_TYPES.has(node.type)) continue;
    childNodes(node, stack);
  }
  return false;
}

function loopRegionRoots(node: AnyNode): AnyNode[] {
  switch (node.type) {
    case 'ForStatement':
      return [node.test, node.update, node.body].filter(Boolean);
    case 'WhileStatement':
    case 'DoWhileStatement':
      return [node.test, node.body];
    default:
      return [node.body];
  }
}

export interface InstrumentResult {
  /** Number of regions instrumented (for tests and diagnostics). */
  regions: number;
}

/** What the instrumentation does to a text: MagicString's edits it uses (./helpers records them to replay). */
export interface Edits {
  readonly original: string;
  appendLeft(index: number, content: string): unknown;
  prependRight(index: number, content: string): unknown;
  overwrite(start: number, end: number, content: string): unknown;
  remove(start: number, end: number): unknown;
}

/**
 * Top-level statements instrumented before (./helpers: esbuild's helper declarations that
 * open the output, whose edits were recorded once): their share of the top-level charge,
 * their regions, and their edits, applied where the top-level charge is.
 */
export interface InstrumentedPrologue {
  nodes: number;
  regions: number;
  replay(s: Edits): void;
}

const NO_PROLOGUE: InstrumentedPrologue = { nodes: 0, regions: 0, replay: () => {} };

/**
 * Instruments `ast` (acorn output for `code`) in `s`. Offsets are those of `code`, which
 * `s` was created from. Top-level charge is inserted at offset 0. `ast` may hold only the
 * statements after an already instrumented `prologue`.
 */
export function instrument(ast: AnyNode, s: Edits, prologue: InstrumentedPrologue = NO_PROLOGUE): InstrumentResult {
  // After a hashbang line, which must stay first.
  const start = s.original.startsWith('#!') ? s.original.indexOf('\n') + 1 || s.original.length : 0;
  s.appendLeft(start, (start === s.original.length ? '\n' : '') + chargeCode(Math.max(1, prologue.nodes + countNodes(ast.body))) + '\n');
  // The prologue's edits come first, as a walk over all statements in order would make them.
  prologue.replay(s);
  return { regions: 1 + prologue.regions + instrumentStatements(ast.body, s) };
}

/** Instruments the regions inside top-level statements (not the top level's own charge); returns how many. */
export function instrumentStatements(statements: AnyNode[], s: Edits): number {
  let regions = 0;
  const visit = (node: AnyNode) => {
    if (node.type === 'ReturnStatement' && depthReturns.has(node)) {
      instrumentReturn(node, s);
    } else if (FUNCTION_TYPES.has(node.type)) {
      regions++;
      instrumentFunction(node, s);
    } else if (LOOP_TYPES.has(node.type)) {
      regions++;
      instrumentLoop(node, s);
    } else if (node.type === 'CatchClause') {
      instrumentCatch(node, s);
    }
  };
  // Pre-order, children in source order (the order of insertions at equal offsets depends on it).
  for (const statement of statements) walk(statement, visit);
  return regions;
}

// Depth is given back on every way out of a frame. Not with try/finally: V8 makes
// `return` inside try/finally costly (3x on call-bound code, measured). Instead each
// `return x` becomes `return (__svc_r = (x), __svc_depth--, __svc_r)`, the end of the body
// decrements, and a catch that decrements and rethrows covers exceptions.
const EXIT_CATCH = 'catch (__svc_e) { __svc_depth--; throw __svc_e; }';

/** Return statements of a function's own region (not of nested functions). */
function ownReturns(body: AnyNode): AnyNode[] {
  const out: AnyNode[] = [];
  const stack = [body];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (node.type === 'ReturnStatement') out.push(node);
    if (FUNCTION_TYPES.has(node.type)) continue;
    childNodes(node, stack);
  }
  return out;
}

function instrumentFunction(node: AnyNode, s: Edits): void {
  const charge = chargeCode(countRegion([...node.params, node.body]));
  // Call depth is counted for ordinary functions that make calls; async functions and
  // generators are suspended and resumed, so their depth would not unwind in order.
  // Native overflow inside them still ends the run through checkCaught and the runtime.
  const tracksDepth = !node.async && !node.generator && makesCalls([...node.params, node.body]);
  if (node.body.type !== 'BlockStatement') {
    // Concise arrow body: make it a block so the entry charge runs at each call.
    const open = tracksDepth ? `{ ${charge} ${ENTER_CODE} let __svc_r; try { return (__svc_r = (` : `{ ${charge} return (`;
    const close = tracksDepth ? `), __svc_depth--, __svc_r); } ${EXIT_CATCH} }` : '); }';
    s.appendLeft(node.body.start, open);
    // Closers of nested regions can end at the same offset (`async (a) => (b) => x`):
    // prependRight puts the inner one (instrumented later) first.
    s.prependRight(node.body.end, close);
    return;
  }
  const body = node.body;
  let insertAt = body.start + 1;
  // Keep a directive prologue ("use strict") first.
  for (const statement of body.body) {
    if (statement.type === 'ExpressionStatement' && typeof statement.directive === 'string') insertAt = statement.end;
    else break;
  }
  if (!tracksDepth) {
    s.appendLeft(insertAt, ` ${charge}`);
    return;
  }
  s.appendLeft(insertAt, ` ${charge} ${ENTER_CODE} let __svc_r; try {`);
  // Before the returns: a return can end where the body does (`return x}`), and its
  // closer, added later with prependRight, must come first.
  s.prependRight(body.end - 1, `; __svc_depth--; } ${EXIT_CATCH}`);
  // Each return is rewritten when the walk reaches it, not now: its closer must come after
  // those of regions inside its argument and before that of a loop around it that ends at
  // the same offset (`for (;;) if (a) return b` with no semicolon), and prependRight orders
  // closers at one offset by when they are added.
  for (const ret of ownReturns(body)) depthReturns.add(ret);
}

/** Returns of depth-tracking functions, rewritten when the walk reaches them. */
const depthReturns = new WeakSet<AnyNode>();

function instrumentReturn(ret: AnyNode, s: Edits): void {
  if (ret.argument) {
    s.appendLeft(ret.argument.start, '(__svc_r = (');
    s.prependRight(ret.argument.end, '), __svc_depth--, __svc_r)');
  } else {
    // `return;` → `return void __svc_depth--;`
    s.appendLeft(ret.end - (s.original[ret.end - 1] === ';' ? 1 : 0), ' void __svc_depth--');
  }
}

function instrumentLoop(node: AnyNode, s: Edits): void {
  const charge = chargeCode(countRegion(loopRegionRoots(node)));
  const body = node.body;
  if (body.type === 'BlockStatement') {
    s.appendLeft(body.start + 1, ` ${charge}`);
  } else {
    s.appendLeft(body.start, `{ ${charge} `);
    s.prependRight(body.end, ' }');
  }
}

function instrumentCatch(node: AnyNode, s: Edits): void {
  if (node.param === null || node.param === undefined) {
    // `catch {` → `catch (__svc_caught) {`
    s.appendLeft(node.body.start, '(__svc_caught) ');
    s.appendLeft(node.body.start + 1, ' __svc_rt.checkCaught(__svc_caught);');
    return;
  }
  if (node.param.type === 'Identifier') {
    s.appendLeft(node.body.start + 1, ` __svc_rt.checkCaught(${node.param.name});`);
    return;
  }
  // A destructuring pattern would throw while binding; catch the raw value first. The
  // pattern stays in place (it may hold instrumented functions): `catch (P) {` becomes
  // `catch (__svc_caught) { check; let P = __svc_caught;` and the body's `}` closes it.
  s.appendLeft(node.param.start, '__svc_caught) { __svc_rt.checkCaught(__svc_caught); let ');
  s.overwrite(node.param.end, node.body.start + 1, ' = __svc_caught;');
}
