// The TypeScript checker of programs (run before compiling, unless the Blueprint turns it off): one warm checker per declaration set and
// mode, holding the parsed library and declaration files and a resident type checker
// (resident.ts), so a new program costs a parse of itself, a light Program over cached
// files and the semantic check of program.ts only.
// Runs in the typecheck worker thread (or in-process where that is not built).
import { boundedCache } from '../bounded-cache';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import type TypeScript from 'typescript';
import { typescript } from './compiler';
import { PROGRAM_FILENAME, type Diagnostic, type DiagnosticNote } from '../contract';
import { deriveSchema } from './schema';
import { blocks } from './blocking';
import { ResidentChecker, residentSupported, type CheckView } from './resident';
import { ES_LIBRARIES } from '../declarations/web-globals';
import { trimLibrary } from '../declarations/es-library';
import type { CheckBatch, CheckRequest, CheckResult, DeclarationSet, SchemaEdit, TypecheckMode } from './types';

const require = createRequire(import.meta.url);

export const MAX_DIAGNOSTICS = 20;
const ROOT = '/__svc_typecheck__/';
const PROGRAM_FILE = `${ROOT}${PROGRAM_FILENAME}`;
/**
 * Where the library files are named in every Program. Not their path on disk: TypeScript
 * looks for a package.json above each file whose path has a node_modules in it, for every
 * file of every new Program (more than half of making one here: 1.56 -> 0.66 ms).
 */
const LIBRARY_ROOT = '/__svc_typecheck_lib__/';

/** The declarations svc gives (globals, web platform, modules, Packages, @mcp servers) live beside the program. */
const isSvcDeclarationFile = (fileName: string) => fileName.startsWith(ROOT) && fileName.endsWith('.d.ts');

/** Codes the compile step reports better (a refused import, top-level await): the check steps aside. */
const LEFT_TO_COMPILE = new Set([2307, 2792, 1375, 1378, 1431, 1432, 2875]);

/**
 * Whether a program may share a type checker with others (resident.ts): each is its own
 * module, so only what a module can put in the global scope or into another module
 * (`declare global`, `declare module "…"` augmentations) would reach the others; a program
 * with either is checked alone.
 */
export function batchable(source: string): boolean {
  return !/\bdeclare\s+(?:global|module)\b/.test(source);
}

/**
 * Library files (ES_LIBRARIES and what they reference) and Temporal, parsed once per thread;
 * a Package build in the same thread (the CLI's `svc build test`) checks against these too.
 */
let library: Map<string, TypeScript.SourceFile> | null = null;

export function libraryFiles(): ReadonlyMap<string, TypeScript.SourceFile> {
  if (library) return library;
  const ts = typescript();
  const directory = path.dirname(require.resolve('typescript/lib/lib.es2023.d.ts'));
  const files = new Map<string, TypeScript.SourceFile>();
  const pending = [...ES_LIBRARIES];
  while (pending.length > 0) {
    const name = pending.pop()!;
    const fileName = `${LIBRARY_ROOT}lib.${name}.d.ts`;
    if (files.has(fileName)) continue;
    const onDisk = path.join(directory, `lib.${name}.d.ts`);
    const file = ts.createSourceFile(fileName, trimLibrary(ts, onDisk, fs.readFileSync(onDisk, 'utf8')), ts.ScriptTarget.ES2022, false);
    files.set(fileName, file);
    for (const reference of file.libReferenceDirectives) pending.push(reference.fileName.toLowerCase());
  }
  // Temporal is a global in every isolate; temporal-polyfill's types come from temporal-spec.
  const temporal = `${LIBRARY_ROOT}temporal-spec/global.d.ts`;
  const temporalText = fs.readFileSync(path.join(path.dirname(require.resolve('temporal-spec')), 'global.d.ts'), 'utf8');
  files.set(temporal, ts.createSourceFile(temporal, temporalText, ts.ScriptTarget.ES2022, false));
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
  /** The checker programs are checked with (made on the first, and again when spent or after a check threw). */
  private resident: ResidentChecker | null = null;
  /** Programs named so far (each program of a resident checker has a name of its own). */
  private named = 0;

  constructor(
    private readonly ts: typeof TypeScript,
    set: DeclarationSet,
    mode: TypecheckMode,
    /** Whether programs may be checked with a resident checker (off: each in a Program of its own, as tests compare). */
    private readonly useResident = true,
    /** Hears of each type checker made for checking programs (a status for tests). */
    private readonly onTypeChecker: () => void = () => {},
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
    this.roots = [...this.files.keys()];
  }

  /**
   * Checks programs one after another, the modules `batchable` allows with the resident
   * checker (resident.ts), which is made once for many programs: a new type checker and the
   * library types it resolves would be most of a check's cost; any other program in a
   * Program of its own. A batch once shared a Program and type checker of its own: since a
   * resident check no longer makes a light Program, that costs more per program than the
   * resident checker, warm or cold (bench/PROFILE.md). `onStart` is called before each
   * program's check, `onResult` after it.
   */
  checkMany(sources: readonly string[], onStart: (index: number) => void, onResult: (index: number, result: CheckResult) => void): void {
    sources.forEach((source, index) => {
      onStart(index);
      onResult(index, this.check(source));
    });
  }

  check(source: string): CheckResult {
    const ts = this.ts;
    if (this.useResident && batchable(source) && residentSupported(ts)) {
      // Each program of a resident checker has a name of its own: its diagnostics are kept by name.
      const file = this.parse(source, `${ROOT}${++this.named}/${PROGRAM_FILENAME}`);
      if (ts.isExternalModule(file)) {
        if (!this.resident || this.resident.spent) {
          this.resident = new ResidentChecker(ts, (files, alone) => this.program(files, this.options, alone));
          this.onTypeChecker();
        }
        const resident = this.resident;
        let result: CheckResult;
        try {
          result = this.checkFile(resident.view(file), file, source);
        } catch (error) {
          // A check that threw may have left the checker's state half-made: the next program gets a new one.
          this.resident = null;
          throw error;
        }
        if (!resident.suggestionsSpent) return result;
        // Its errors came past the checker's suggestions (resident.ts): checked again as a new
        // checker's first program, it gets the answer a Program of its own gives, whatever names
        // the programs before it (another token's, too) failed to resolve.
        this.resident = null;
        return this.check(source);
      }
    }
    // A program without import or export is a script: its top-level names are global, so it is checked alone.
    const alone = this.program([this.parse(source, PROGRAM_FILE)], this.options);
    this.onTypeChecker();
    return this.checkFile(viewOf(alone), alone.getSourceFile(PROGRAM_FILE)!, source);
  }

  private parse(source: string, fileName: string): TypeScript.SourceFile {
    const ts = this.ts;
    // No parent pointers from the parser (its own walk of the tree, a sixth of a small
    // program's parse): the binder sets them before anything here reads one, as for tsc's files.
    return ts.createSourceFile(fileName, source, { languageVersion: ts.ScriptTarget.ES2022, impliedNodeFormat: ts.ModuleKind.ESNext }, false, ts.ScriptKind.TS);
  }

  private checkFile(built: CheckView, file: TypeScript.SourceFile, source: string): CheckResult {
    const ts = this.ts;
    // Syntax errors are the compile step's (esbuild's messages, as before).
    if (built.syntactic(file).length > 0) return { ok: true, edits: [], warnings: [] };
    const found = built.semantic(file);
    if (found.some((d) => LEFT_TO_COMPILE.has(d.code))) return { ok: true, edits: [], warnings: [] };
    const errors = found.filter((d) => d.category === ts.DiagnosticCategory.Error);
    // `strict` blocks on every type error; `on` only on what certainly fails against svc's declarations (blocking.ts).
    const context = this.lenient ? { ts, checker: built.checker, file, isSvcDeclarationFile } : null;
    const blocking = context ? errors.filter((d) => blocks(context, d)) : errors;
    const diagnostics = blocking.map((d) => toDiagnostic(ts, d, file));
    if (diagnostics.length > 0) return { ok: false, diagnostics: diagnostics.slice(0, MAX_DIAGNOSTICS) };
    const warnings = errors.slice(0, MAX_DIAGNOSTICS).map((d) => ({ ...toDiagnostic(ts, d, file), severity: 'warning' as const }));
    // Cheap gate: without an import of svc:llm there is no typed call to derive a schema for.
    if (!source.includes('svc:llm') || llmCallSites(ts, built.checker, file).length === 0) return { ok: true, edits: [], warnings };
    // Schemas are derived with null checks: in `on`, in a Program of this program alone.
    const schemas = this.schemaOptions === this.options ? null : this.program([this.parse(source, PROGRAM_FILE)], this.schemaOptions);
    const schemaFile = schemas ? schemas.getSourceFile(PROGRAM_FILE)! : file;
    const checker = schemas ? schemas.getTypeChecker() : built.checker;
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
    return this.program([this.parse(source, PROGRAM_FILE)], this.options);
  }

  /** A Program over the cached declaration files (or, `alone`, none) and the given program files. */
  private program(programFiles: readonly TypeScript.SourceFile[], options: TypeScript.CompilerOptions, alone = false): TypeScript.Program {
    const programs = new Map(programFiles.map((file) => [file.fileName, file]));
    const files = this.files;
    const host: TypeScript.CompilerHost = {
      ...FIXED_HOST,
      getSourceFile: (fileName) => programs.get(fileName) ?? files.get(fileName),
      fileExists: (fileName) => programs.has(fileName) || files.has(fileName),
    };
    return this.ts.createProgram({ rootNames: alone ? [...programs.keys()] : [...programs.keys(), ...this.roots], options, host });
  }
}

/** What every Program's host answers alike: nothing is read from disk, written or resolved (`resolveLibrary` is TypeScript's own, not in its public typings). */
const FIXED_HOST: Omit<TypeScript.CompilerHost, 'getSourceFile' | 'fileExists'> & { resolveLibrary(): TypeScript.ResolvedModuleWithFailedLookupLocations } = {
  getDefaultLibFileName: () => `${ROOT}lib.d.ts`,
  writeFile: () => {},
  getCurrentDirectory: () => ROOT,
  getCanonicalFileName: (fileName) => fileName,
  useCaseSensitiveFileNames: () => true,
  getNewLine: () => '\n',
  readFile: () => undefined,
  // Every import is an ambient module of the set (`svc:…`, `@mcp/…`, Packages) or nothing.
  resolveModuleNameLiterals: (literals) => literals.map(() => ({ resolvedModule: undefined })),
  // Never asked (noResolve, noLib), but without them createProgram builds a resolution cache
  // for each, per Program: with a light Program per check, about a tenth of a check's CPU.
  resolveTypeReferenceDirectiveReferences: (references) => references.map(() => ({ resolvedTypeReferenceDirective: undefined })),
  resolveLibrary: () => ({ resolvedModule: undefined }),
};

/** A Program's own checker and diagnostics. */
function viewOf(program: TypeScript.Program): CheckView {
  return { checker: program.getTypeChecker(), syntactic: (file) => program.getSyntacticDiagnostics(file), semantic: (file) => program.getSemanticDiagnostics(file) };
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
    if (related.file?.fileName === file.fileName) notes.push({ ...position(file, related.start ?? 0), message: text });
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

/** Warm checkers a thread keeps at most (declaration sets and modes). */
export const WARM_CHECKERS = 16;

/** Warm checkers by declaration-set hash and mode; the least recently used go beyond the count or byte limit. */
export class Checkers {
  private readonly checkers;
  /** Warm checkers made so far (a set's first check or warm-up, or again after eviction). */
  made = 0;
  /** Type checkers made to check programs (resident ones, and one per program checked alone). */
  typeCheckers = 0;

  constructor(
    limit = WARM_CHECKERS,
    byteLimit = WARM_DECLARATION_BYTES,
    /** Off: every program in a Program of its own (what the resident checker's answers are compared with). */
    private readonly resident = true,
  ) {
    this.checkers = boundedCache<{ checker: WarmChecker; bytes: number }>({ maxEntries: limit, maxBytes: byteLimit, sizeOf: (entry) => entry.bytes });
  }

  check(request: CheckRequest): CheckResult {
    return this.checkerFor(request).check(request.source);
  }

  /** Checks programs of one declaration set and mode together (WarmChecker.checkMany); `batchable` says which may be. */
  checkMany(batch: CheckBatch, onStart: (index: number) => void, onResult: (index: number, result: CheckResult) => void): void {
    this.checkerFor(batch).checkMany(batch.sources, onStart, onResult);
  }

  private checkerFor(request: Pick<CheckRequest, 'set' | 'mode'>): WarmChecker {
    const key = `${request.set.hash}:${request.mode}`;
    const kept = this.checkers.get(key);
    if (kept) return kept.checker;
    this.made++;
    const entry = { checker: new WarmChecker(typescript(), request.set, request.mode, this.resident, () => this.typeCheckers++), bytes: request.set.modules.reduce((sum, text) => sum + text.length, 0) };
    // One past the whole budget is used for this check and not kept.
    this.checkers.set(key, entry);
    return entry.checker;
  }

  /** Declaration text the warm checkers hold (UTF-16 code units). */
  get heldBytes(): number {
    return this.checkers.calculatedSize;
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
