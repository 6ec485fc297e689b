// The TypeScript checker of programs (run before compiling, unless the Blueprint turns it off): one warm checker per declaration set and
// mode, holding the parsed library and declaration files, so a new program costs a parse
// of itself, a new Program over cached files and the semantic check of program.ts only.
// Runs in the typecheck worker thread (or in-process where that is not built).
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import type TypeScript from 'typescript';
import { typescript } from './compiler';
import { PROGRAM_FILENAME, type Diagnostic, type DiagnosticNote } from '../contract';
import { deriveSchema } from './schema';
import { blocks } from './blocking';
import { ES_LIBRARIES } from '../declarations/web-globals';
import { trimLibrary } from '../declarations/es-library';
import type { CheckRequest, CheckResult, DeclarationSet, SchemaEdit, TypecheckMode } from './types';

const require = createRequire(import.meta.url);

export const MAX_DIAGNOSTICS = 20;
const ROOT = '/__svc_typecheck__/';
const PROGRAM_FILE = `${ROOT}${PROGRAM_FILENAME}`;

/** The declarations svc gives (globals, web platform, modules, Packages, @mcp servers) live beside the program. */
const isSvcDeclarationFile = (fileName: string) => fileName.startsWith(ROOT) && fileName !== PROGRAM_FILE;

/** Codes the compile step reports better (a refused import, top-level await): the check steps aside. */
const LEFT_TO_COMPILE = new Set([2307, 2792, 1375, 1378, 1431, 1432, 2875]);

/** Library files (ES_LIBRARIES and what they reference) and Temporal, parsed once per process. */
let library: Map<string, TypeScript.SourceFile> | null = null;

function libraryFiles(): Map<string, TypeScript.SourceFile> {
  if (library) return library;
  const ts = typescript();
  const directory = path.dirname(require.resolve('typescript/lib/lib.es2023.d.ts'));
  const files = new Map<string, TypeScript.SourceFile>();
  const pending = [...ES_LIBRARIES];
  while (pending.length > 0) {
    const name = pending.pop()!;
    const fileName = path.join(directory, `lib.${name}.d.ts`);
    if (files.has(fileName)) continue;
    const file = ts.createSourceFile(fileName, trimLibrary(ts, fileName, fs.readFileSync(fileName, 'utf8')), ts.ScriptTarget.ES2022, false);
    files.set(fileName, file);
    for (const reference of file.libReferenceDirectives) pending.push(reference.fileName.toLowerCase());
  }
  // Temporal is a global in every isolate; temporal-polyfill's types come from temporal-spec.
  const temporal = path.join(path.dirname(require.resolve('temporal-spec')), 'global.d.ts');
  files.set(temporal, ts.createSourceFile(temporal, fs.readFileSync(temporal, 'utf8'), ts.ScriptTarget.ES2022, false));
  library = files;
  return files;
}

let globalsText: string | null = null;

/** sandbox/declarations/globals.d.ts, found from sandbox/typecheck (tsx) or dist/ (bundled). */
function globals(): string {
  if (globalsText !== null) return globalsText;
  const here = path.dirname(new URL(import.meta.url).pathname);
  for (const base of [path.join(here, '..'), path.join(here, '..', 'sandbox'), path.join(here, '..', '..', 'sandbox')]) {
    const candidate = path.join(base, 'declarations', 'globals.d.ts');
    if (fs.existsSync(candidate)) return (globalsText = fs.readFileSync(candidate, 'utf8'));
  }
  throw new Error('missing sandbox/declarations/globals.d.ts');
}

/**
 * The checked view of a declaration: values the declarations give as `unknown` (a JSON
 * body, a session value, an MCP result) are `any` here, so agents use them without casts.
 */
export function permissive(text: string): string {
  return text.replace(/\bunknown\b/g, 'any');
}

function compilerOptions(ts: typeof TypeScript, mode: TypecheckMode): TypeScript.CompilerOptions {
  return {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    moduleDetection: ts.ModuleDetectionKind.Force,
    noLib: true,
    noResolve: true,
    types: [],
    skipLibCheck: true,
    skipDefaultLibCheck: true,
    noEmit: true,
    allowJs: false,
    isolatedModules: true,
    verbatimModuleSyntax: false,
    // `on` catches wrong names, arguments and properties; `strict` adds null checks and implicit any.
    strict: mode === 'strict',
    noImplicitAny: mode === 'strict',
    useUnknownInCatchVariables: false,
    allowUnreachableCode: true,
    allowUnusedLabels: true,
  };
}

/** A warm checker for one declaration set and mode. */
class WarmChecker {
  private readonly files = new Map<string, TypeScript.SourceFile>();
  private readonly roots: string[];
  private readonly options: TypeScript.CompilerOptions;
  /** Schemas are derived with null checks on, so `string | null` keeps its null in every mode. */
  private readonly schemaOptions: TypeScript.CompilerOptions;
  /** `on` (not `strict`): only errors against svc's declarations block (blocking.ts); the rest are warnings. */
  private readonly lenient: boolean;

  constructor(
    private readonly ts: typeof TypeScript,
    set: DeclarationSet,
    mode: TypecheckMode,
  ) {
    this.options = compilerOptions(ts, mode);
    this.lenient = mode !== 'strict';
    this.schemaOptions = mode === 'strict' ? this.options : { ...this.options, strictNullChecks: true };
    for (const [fileName, file] of libraryFiles()) this.files.set(fileName, file);
    const declarations = [globals(), ...set.modules];
    declarations.forEach((text, index) => {
      const fileName = `${ROOT}declarations${index}.d.ts`;
      this.files.set(fileName, ts.createSourceFile(fileName, permissive(text), ts.ScriptTarget.ES2022, false));
    });
    this.roots = [PROGRAM_FILE, ...this.files.keys()];
  }

  check(source: string): CheckResult {
    // No old Program is passed or kept: the files are cached here anyway, and a kept Program
    // (its whole type checker) cost memory per warm checker and made checks slower (GC).
    const built = this.program(source, this.options, undefined);
    const ts = this.ts;
    const file = built.getSourceFile(PROGRAM_FILE)!;
    // Syntax errors are the compile step's (esbuild's messages, as before).
    if (built.getSyntacticDiagnostics(file).length > 0) return { ok: true, edits: [], warnings: [] };
    const found = built.getSemanticDiagnostics(file);
    if (found.some((d) => LEFT_TO_COMPILE.has(d.code))) return { ok: true, edits: [], warnings: [] };
    const errors = found.filter((d) => d.category === ts.DiagnosticCategory.Error);
    // `strict` blocks on every type error; `on` only on what certainly fails against svc's declarations (blocking.ts).
    const context = this.lenient ? { ts, checker: built.getTypeChecker(), file, isSvcDeclarationFile } : null;
    const blocking = context ? errors.filter((d) => blocks(context, d)) : errors;
    const diagnostics = blocking.map((d) => toDiagnostic(ts, d, file));
    if (diagnostics.length > 0) return { ok: false, diagnostics: diagnostics.slice(0, MAX_DIAGNOSTICS) };
    const warnings = errors.slice(0, MAX_DIAGNOSTICS).map((d) => ({ ...toDiagnostic(ts, d, file), severity: 'warning' as const }));
    // Cheap gate: without an import of svc:llm there is no typed call to derive a schema for.
    if (!source.includes('svc:llm') || llmCallSites(ts, built.getTypeChecker(), file).length === 0) return { ok: true, edits: [], warnings };
    const schemas = this.schemaOptions === this.options ? built : this.program(source, this.schemaOptions, undefined);
    const schemaFile = schemas.getSourceFile(PROGRAM_FILE)!;
    const checker = schemas.getTypeChecker();
    // Each schema becomes a hoisted function at the end of the source and the call passes
    // `, $svcSchema0()`: the lines before and the line of the call stay readable in excerpts.
    const edits: SchemaEdit[] = [];
    const definitions: string[] = [];
    let prefix = '$svcSchema';
    while (source.includes(prefix)) prefix += '_';
    for (const site of llmCallSites(ts, checker, schemaFile)) {
      const derived = deriveSchema(ts, checker, checker.getTypeFromTypeNode(site.typeArgument), site.typeArgument);
      if (!derived.ok) {
        diagnostics.push({ severity: 'error', ...position(schemaFile, site.typeArgument.getStart(schemaFile)), message: derived.message });
        continue;
      }
      const name = `${prefix}${definitions.length}`;
      edits.push({ offset: site.insertAt, text: `, ${name}()` });
      definitions.push(`function ${name}() { return ${JSON.stringify(derived.schema)}; }`);
    }
    if (definitions.length > 0) edits.push({ offset: source.length, text: `\n${definitions.join('\n')}\n` });
    if (diagnostics.length > 0) return { ok: false, diagnostics: diagnostics.slice(0, MAX_DIAGNOSTICS) };
    return { ok: true, edits, warnings };
  }

  /** A Program over the declarations in scope for `source` (for questions about what is declared). */
  programFor(source: string): TypeScript.Program {
    return this.program(source, this.options, undefined);
  }

  /** A Program over the cached declaration files and a fresh parse of the program. */
  private program(source: string, options: TypeScript.CompilerOptions, oldProgram: TypeScript.Program | undefined): TypeScript.Program {
    const ts = this.ts;
    const program = ts.createSourceFile(PROGRAM_FILE, source, { languageVersion: ts.ScriptTarget.ES2022, impliedNodeFormat: ts.ModuleKind.ESNext }, true, ts.ScriptKind.TS);
    const files = this.files;
    const host: TypeScript.CompilerHost = {
      getSourceFile: (fileName) => (fileName === PROGRAM_FILE ? program : files.get(fileName)),
      getDefaultLibFileName: () => `${ROOT}lib.d.ts`,
      writeFile: () => {},
      getCurrentDirectory: () => ROOT,
      getCanonicalFileName: (fileName) => fileName,
      useCaseSensitiveFileNames: () => true,
      getNewLine: () => '\n',
      fileExists: (fileName) => fileName === PROGRAM_FILE || files.has(fileName),
      readFile: () => undefined,
      // Every import is an ambient module of the set (`svc:…`, `@mcp/…`, Packages) or nothing.
      resolveModuleNameLiterals: (literals) => literals.map(() => ({ resolvedModule: undefined })),
    };
    return ts.createProgram({ rootNames: this.roots, options, host, oldProgram });
  }
}

function position(file: TypeScript.SourceFile, offset: number): { line: number; column: number } {
  // Characters here are UTF-16 code units, as the contract's columns are.
  const { line, character } = file.getLineAndCharacterOfPosition(offset);
  return { line: line + 1, column: character + 1 };
}

const SUGGESTION = /\s*Did you mean (?:to write )?'([^']+)'\?$/;

function toDiagnostic(ts: typeof TypeScript, d: TypeScript.Diagnostic, file: TypeScript.SourceFile): Diagnostic {
  let message = ts.flattenDiagnosticMessageText(d.messageText, '\n');
  let help: string | undefined;
  const first = message.split('\n')[0];
  const suggestion = SUGGESTION.exec(first);
  if (suggestion) {
    help = `did you mean \`${suggestion[1]}\`?`;
    message = first.slice(0, suggestion.index) + message.slice(first.length);
  }
  const diagnostic: Diagnostic = { severity: 'error', ...position(file, d.start ?? 0), message };
  // Related information in a declaration file is placed at the diagnostic (its own position
  // means nothing to the agent); "'x' is declared here" there says nothing new.
  const notes: DiagnosticNote[] = [];
  for (const related of d.relatedInformation ?? []) {
    const text = ts.flattenDiagnosticMessageText(related.messageText, '\n');
    if (related.file?.fileName === PROGRAM_FILE) notes.push({ ...position(file, related.start ?? 0), message: text });
    else if (!/is declared here\.$/.test(text)) notes.push({ line: diagnostic.line, column: diagnostic.column, message: text });
  }
  if (notes.length > 0) diagnostic.notes = notes;
  if (help) diagnostic.help = help;
  return diagnostic;
}

/** `llm.call<T>(model, prompt)` / `llm.batch<T>(model, prompts)` of svc:llm with no schema argument. */
function llmCallSites(ts: typeof TypeScript, checker: TypeScript.TypeChecker, file: TypeScript.SourceFile): Array<{ typeArgument: TypeScript.TypeNode; insertAt: number }> {
  const sites: Array<{ typeArgument: TypeScript.TypeNode; insertAt: number }> = [];
  const visit = (node: TypeScript.Node): void => {
    if (ts.isCallExpression(node) && node.typeArguments?.length === 1 && node.arguments.length === 2) {
      const declaration = checker.getResolvedSignature(node)?.getDeclaration();
      const name = declaration && ts.isFunctionDeclaration(declaration) ? declaration.name?.text : undefined;
      if ((name === 'call' || name === 'batch') && isInModule(ts, declaration!, 'svc:llm')) {
        sites.push({ typeArgument: node.typeArguments[0], insertAt: node.arguments[1].getEnd() });
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return sites;
}

function isInModule(ts: typeof TypeScript, node: TypeScript.Node, name: string): boolean {
  for (let at: TypeScript.Node | undefined = node.parent; at; at = at.parent) {
    if (ts.isModuleDeclaration(at) && ts.isStringLiteral(at.name)) return at.name.text === name;
  }
  return false;
}

/** The names of every global value a program is checked against (the ES libraries, svc's globals and Temporal). */
export function declaredGlobalValues(): Set<string> {
  const ts = typescript();
  const checker = new WarmChecker(ts, { hash: '', modules: [] }, 'on');
  const program = checker.programFor('export {};');
  const file = program.getSourceFile(PROGRAM_FILE)!;
  return new Set(program.getTypeChecker().getSymbolsInScope(file, ts.SymbolFlags.Value).map((symbol) => symbol.name));
}

/**
 * Every global value with the property names its declared type gives (`statics`) and, for a
 * constructor, the names its `prototype` property's type gives (`instance`); symbol-keyed
 * members left out. For comparing the declarations with what an isolate really has.
 */
export function declaredGlobalMembers(): Map<string, { statics: string[]; instance: string[] }> {
  const ts = typescript();
  const checker = new WarmChecker(ts, { hash: '', modules: [] }, 'on');
  const program = checker.programFor('export {};');
  const file = program.getSourceFile(PROGRAM_FILE)!;
  const types = program.getTypeChecker();
  const names = (type: TypeScript.Type) => types.getPropertiesOfType(type).map((p) => p.name).filter((name) => !name.startsWith('__@'));
  const out = new Map<string, { statics: string[]; instance: string[] }>();
  for (const symbol of types.getSymbolsInScope(file, ts.SymbolFlags.Value)) {
    const type = types.getTypeOfSymbolAtLocation(symbol, file);
    const prototype = type.getProperty('prototype');
    const instance = prototype ? names(types.getTypeOfSymbolAtLocation(prototype, file)) : [];
    out.set(symbol.name, { statics: names(type).filter((name) => name !== 'prototype'), instance });
  }
  return out;
}

/**
 * Bytes of declaration text the warm checkers of one thread hold at most: each keeps its
 * declarations parsed (about ten times the text), so Blueprints with
 * large Packages evict the least recently used sooner than the count alone would.
 */
export const WARM_DECLARATION_BYTES = 8 * 1024 * 1024;

/** Warm checkers by declaration-set hash and mode; the least recently used go beyond the count or byte limit. */
export class Checkers {
  private readonly checkers = new Map<string, { checker: WarmChecker; bytes: number }>();
  private bytes = 0;

  constructor(
    private readonly limit = 16,
    private readonly byteLimit = WARM_DECLARATION_BYTES,
  ) {}

  check(request: CheckRequest): CheckResult {
    const key = `${request.set.hash}:${request.mode}`;
    let entry = this.checkers.get(key);
    if (entry) this.checkers.delete(key);
    else {
      entry = { checker: new WarmChecker(typescript(), request.set, request.mode), bytes: request.set.modules.reduce((sum, text) => sum + text.length, 0) };
      this.bytes += entry.bytes;
    }
    this.checkers.set(key, entry);
    // The checker just used stays, whatever its size.
    while (this.checkers.size > 1 && (this.checkers.size > this.limit || this.bytes > this.byteLimit)) {
      const [oldest, evicted] = this.checkers.entries().next().value as [string, { bytes: number }];
      this.checkers.delete(oldest);
      this.bytes -= evicted.bytes;
    }
    return entry.checker.check(request.source);
  }

  /** Declaration text the warm checkers hold (UTF-16 code units). */
  get heldBytes(): number {
    return this.bytes;
  }

  /** Loads TypeScript, the library files and the globals ahead of the first check. */
  warm(): void {
    typescript();
    libraryFiles();
    globals();
  }

  get size(): number {
    return this.checkers.size;
  }
}
