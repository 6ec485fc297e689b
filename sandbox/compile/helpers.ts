// esbuild opens its CommonJS output with the same helper declarations every time
// (`var __defProp=Object.defineProperty;`, `__export`, `__toCommonJS`, `__toESM`, ...):
// three quarters of a hello world's output, and most of what the compile worker parsed,
// walked and instrumented per new program. Each helper is parsed and instrumented once
// here, from esbuild's own output for a seed program, and its recorded edits are replayed
// wherever the same text opens a program's output; only the rest is parsed per program.
//
// Why a replay is the same as instrumenting in place: a helper is one complete top-level
// statement ending in `;`, so the parser ends it there whatever follows, and everything the
// compile does to a top-level statement depends on that statement alone (its regions, its
// returns and catches; the top-level charge adds up over statements). Helpers hold no
// `require`, no `__svc` names and no `main`, so the import and entry-point checks have
// nothing to find in them (checked below when they are learned).
//
// Most helpers are not even replayed: the runtime gives every unit its own implementation of
// them (sandbox/prelude/commonjs.ts), so their text is removed from the script and its
// header binds their names instead (bindingsOf). A helper is given only when its text is the
// one that implementation was written against (GIVEN_HELPERS); another esbuild's text stays
// in the script, instrumented, until the runtime's copy is checked against it.
import { createHash } from 'node:crypto';
import { Parser, type Node, type Options } from 'acorn';
import { COMMONJS_HELPER_NAMES, type CommonJsHelperName } from '../contract';
import { countNodes, instrumentStatements, walk, type Edits, type InstrumentedPrologue } from './instrument';

type AnyNode = Node & Record<string, any>;

/**
 * The helpers the runtime gives, by the digest (sha256, first 16 hex digits) of esbuild's
 * text for each, whitespace minified: the text the runtime's copy does the same as. A check
 * that esbuild did not change a helper, not a secret: a program that wrote such a statement
 * itself would only get the runtime's copy of the same code.
 */
const GIVEN_HELPERS: Readonly<Record<CommonJsHelperName, string>> = {
  __create: 'bb7cd241867fae21',
  __defProp: '504cad4f10b1f1ce',
  __getOwnPropDesc: '89a933ac0bfbb95e',
  __getOwnPropNames: '1a57e1193be7c1d6',
  __getProtoOf: 'bb90352b9cc5914e',
  __hasOwnProp: 'f80190e797a1539c',
  __export: '44aa14d069807da1',
  __copyProps: '65d23d2f919a56a8',
  __reExport: 'bbe92f1f7df1b49b',
  __toESM: '0bdcbb6eb3c2fe4d',
  __toCommonJS: 'b095b1284dae4192',
};

const isGiven = (name: string, text: string): boolean =>
  (COMMONJS_HELPER_NAMES as readonly string[]).includes(name) && GIVEN_HELPERS[name as CommonJsHelperName] === createHash('sha256').update(text).digest('hex').slice(0, 16);

/** One learned helper: its text, its share of the top-level charge, and its edits relative to its start. */
export interface Helper {
  name: string;
  /** The runtime gives it: its text is removed, not instrumented. */
  given: boolean;
  text: string;
  nodes: number;
  regions: number;
  edits: Array<(s: Edits, at: number) => void>;
}

/** The output's opening helpers, matched: where the rest starts, and what they add. */
export interface Prologue extends InstrumentedPrologue {
  /** Offset of the first statement that is not a learned helper. */
  end: number;
  /** Names of the matched helpers the runtime gives (their text is removed by the replay). */
  given: string[];
}

const EMPTY: Prologue = { end: 0, nodes: 0, regions: 0, given: [], replay: () => {} };

/** How esbuild names its helpers (`__defProp`, `__toCommonJS`); a program's own names never reach the helper list (see learn). */
const HELPER_NAME = /^__[A-Za-z]+$/;

/**
 * A program whose output uses the helpers a program's own output can: exports, a namespace
 * and a default import, a re-export. Compiled once per compile thread.
 */
export const SEED_PROGRAM = 'import * as a from "svc:a";\nimport b from "svc:b";\nexport * from "svc:c";\nexport function main() { return [a, b]; }\n';

/** Records edits at offsets relative to `base`, to be replayed at another offset. */
class Recorder implements Edits {
  readonly edits: Array<(s: Edits, at: number) => void> = [];
  constructor(
    readonly original: string,
    private readonly base: number,
  ) {}
  appendLeft(index: number, content: string): void {
    const offset = index - this.base;
    this.edits.push((s, at) => s.appendLeft(at + offset, content));
  }
  prependRight(index: number, content: string): void {
    const offset = index - this.base;
    this.edits.push((s, at) => s.prependRight(at + offset, content));
  }
  overwrite(start: number, end: number, content: string): void {
    const from = start - this.base;
    const to = end - this.base;
    this.edits.push((s, at) => s.overwrite(at + from, at + to, content));
  }
  remove(start: number, end: number): void {
    const from = start - this.base;
    const to = end - this.base;
    this.edits.push((s, at) => s.remove(at + from, at + to));
  }
}

/** Names the compile's other passes act on (imports, the entry point, the module wrapper, reserved names). */
const actedOn = (node: AnyNode) =>
  node.type === 'ImportExpression' || (node.type === 'Identifier' && (node.name === 'require' || node.name === 'main' || node.name === 'module' || node.name.startsWith('__svc')));

function holdsActedOn(statement: AnyNode): boolean {
  let found = false;
  walk(statement, (node) => {
    if (actedOn(node)) found = true;
  });
  return found;
}

/**
 * The helper declarations that open `code` (esbuild's output for SEED_PROGRAM), each
 * parsed and instrumented alone. Only a contiguous run from offset 0 of single `var
 * __name=...;` declarations is taken.
 */
export function learnHelpers(code: string, options: Options): Helper[] {
  const ast = Parser.parse(code, options) as AnyNode;
  const helpers: Helper[] = [];
  let at = 0;
  for (const statement of ast.body as AnyNode[]) {
    if (statement.start !== at || statement.type !== 'VariableDeclaration' || statement.kind !== 'var' || statement.declarations.length !== 1) break;
    const id = statement.declarations[0].id;
    if (id.type !== 'Identifier' || !HELPER_NAME.test(id.name) || code[statement.end - 1] !== ';' || holdsActedOn(statement)) break;
    const recorder = new Recorder(code, statement.start);
    const regions = instrumentStatements([statement], recorder);
    const text = code.slice(statement.start, statement.end);
    helpers.push({ name: id.name, given: isGiven(id.name, text), text, nodes: countNodes([statement]), regions, edits: recorder.edits });
    at = statement.end;
  }
  return helpers;
}

/**
 * The learned helpers that open `code`, in order (none when it opens otherwise). With
 * `runtimeGives` false, every helper is replayed (the script then holds them all, as when
 * the whole output is instrumented).
 */
export function matchPrologue(code: string, helpers: readonly Helper[], runtimeGives = true): Prologue {
  if (helpers.length === 0) return EMPTY;
  const matched: Array<{ helper: Helper; at: number }> = [];
  let end = 0;
  for (;;) {
    const helper = helpers.find((h) => code.startsWith(h.text, end));
    if (!helper) break;
    matched.push({ helper, at: end });
    end += helper.text.length;
  }
  // A quote after them could start a directive prologue ("use strict"), which a parse
  // starting there would read as one: the whole output is parsed then.
  if (matched.length === 0 || code[end] === '"' || code[end] === "'") return EMPTY;
  let nodes = 0;
  let regions = 0;
  const given: string[] = [];
  for (const { helper } of matched) {
    if (runtimeGives && helper.given) {
      given.push(helper.name);
      continue;
    }
    nodes += helper.nodes;
    regions += helper.regions;
  }
  return {
    end,
    nodes,
    regions,
    given,
    replay(s) {
      for (const { helper, at } of matched) {
        if (runtimeGives && helper.given) s.remove(at, at + helper.text.length);
        else for (const edit of helper.edits) edit(s, at);
      }
    },
  };
}

/**
 * The script's lines binding the helpers the runtime gives, from its runtime object (`__svc_rt`):
 * outside the unit, so a name of the unit's own can never clash (esbuild renames a program's
 * names that clash with its helpers anyway). `let`, as assignable as the `var` they replace.
 */
export function bindingsOf(prologue: Prologue): string[] {
  return prologue.given.length === 0 ? [] : [`let { ${prologue.given.join(', ')} } = __svc_rt.commonJsHelpers;`];
}

/** Acorn's parser from an offset: the statements of `code` after `start`, with offsets in `code`. */
class ParserFrom extends Parser {
  static statementsAfter(code: string, start: number, options: Options): AnyNode {
    return new ParserFrom(options, code, start).parse() as AnyNode;
  }
}

/** Parses `code` after its prologue (all of it when there is none). */
export function parseAfter(code: string, prologue: Prologue, options: Options): AnyNode {
  return prologue.end === 0 ? (Parser.parse(code, options) as AnyNode) : ParserFrom.statementsAfter(code, prologue.end, options);
}
