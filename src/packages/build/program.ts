// The TypeScript program of one Package: its own sources plus virtual declaration files
// for the `svc:` modules, the sandbox globals and its dependencies. Type errors are
// warnings; syntax errors and unresolvable imports are errors.
import fs from 'node:fs';
import path from 'node:path';
import type TypeScript from 'typescript';
// TypeScript is large: loaded on the first build, never at server start; the same load as
// the type checker's in this thread (a CLI command that builds and checks loads it once).
import { libraryFiles, typescript } from '../../../sandbox/typecheck';
import type { BuildDiagnostic } from './diagnostics';

const VIRTUAL = '/__svc_virtual__/';

/** Parsed ambient declarations by file name: every Package of a build (and of a process) has the same ones. */
const ambientFiles = new Map<string, TypeScript.SourceFile>();
const AMBIENT = `${VIRTUAL}ambient`;

export interface ProgramInput {
  /** Absolute directory of the Package (holds src/). */
  directory: string;
  /** Package name, for rendered file names (`@acme/billing/src/lib.ts`). */
  name: string;
  /** Ambient `declare module "svc:…"` texts and the sandbox globals. */
  ambient: string[];
  /** Declarations (.d.ts module text) of each dependency by name. */
  dependencies: ReadonlyMap<string, string>;
}

export interface PackageProgram {
  ts: typeof TypeScript;
  program: TypeScript.Program;
  checker: TypeScript.TypeChecker;
  entry: TypeScript.SourceFile;
  /** The Package's own source files. */
  sources: TypeScript.SourceFile[];
  /** `@acme/billing/src/util.ts` for an absolute path. */
  displayName: (fileName: string) => string;
  /** Per own source file (absolute, .ts): its emitted .d.ts text. */
  declarations: Map<string, string>;
  errors: BuildDiagnostic[];
  warnings: BuildDiagnostic[];
}

function listSources(directory: string): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.isFile() && entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) out.push(full);
    }
  };
  walk(path.join(directory, 'src'));
  return out;
}

/** A dependency's module declarations inside `declare module "<name>" { … }`. */
export function ambientModule(name: string, declarations: string): string {
  // Inside an ambient module `declare` is implied (and an error when written).
  const body = declarations.replace(/^(\s*(?:export\s+)?(?:default\s+)?)declare\s+/gm, '$1');
  return `declare module ${JSON.stringify(name)} {\n${body}\n}\n`;
}

export function createPackageProgram(input: ProgramInput): PackageProgram {
  const ts = typescript();
  const options: TypeScript.CompilerOptions = {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    // The libraries programs are checked against (the runtime's built-ins), parsed once per thread and shared with its checker.
    noLib: true,
    types: [],
    strict: true,
    declaration: true,
    emitDeclarationOnly: true,
    skipLibCheck: true,
    noEmitOnError: false,
    allowImportingTsExtensions: false,
  };
  const virtual = new Map<string, string>();
  input.ambient.forEach((text, index) => virtual.set(`${AMBIENT}${index}.d.ts`, text));
  [...input.dependencies].forEach(([name, text], index) => virtual.set(`${VIRTUAL}dependency${index}.d.ts`, ambientModule(name, text)));
  const library = libraryFiles();
  const host = ts.createCompilerHost(options, true);
  const baseGetSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (fileName, languageVersion, onError, shouldCreate) => {
    const text = virtual.get(fileName);
    if (text !== undefined) {
      if (!fileName.startsWith(AMBIENT)) return ts.createSourceFile(fileName, text, languageVersion, true);
      const shared = ambientFiles.get(fileName);
      if (shared?.text === text) return shared;
      const parsed = ts.createSourceFile(fileName, text, languageVersion, true);
      ambientFiles.set(fileName, parsed);
      return parsed;
    }
    return library.get(fileName) ?? baseGetSourceFile(fileName, languageVersion, onError, shouldCreate);
  };
  const baseFileExists = host.fileExists.bind(host);
  host.fileExists = (fileName) => virtual.has(fileName) || library.has(fileName) || baseFileExists(fileName);
  const baseReadFile = host.readFile.bind(host);
  host.readFile = (fileName) => virtual.get(fileName) ?? baseReadFile(fileName);
  const declarations = new Map<string, string>();
  host.writeFile = (fileName, text) => {
    declarations.set(fileName.replace(/\.d\.ts$/, '.ts'), text);
  };

  const own = listSources(input.directory);
  const program = ts.createProgram({ rootNames: [...own, ...library.keys(), ...virtual.keys()], options, host });
  const checker = program.getTypeChecker();
  const srcDir = path.join(input.directory, 'src');
  const displayName = (fileName: string) => `${input.name}/src/${path.relative(srcDir, fileName).split(path.sep).join('/')}`;
  const sources = own.map((file) => program.getSourceFile(file)!).filter(Boolean);
  const entry = sources.find((s) => path.resolve(s.fileName) === path.join(srcDir, 'lib.ts'))!;

  const errors: BuildDiagnostic[] = [];
  const warnings: BuildDiagnostic[] = [];
  const toDiagnostic = (d: TypeScript.Diagnostic, severity: 'error' | 'warning'): BuildDiagnostic => {
    const message = ts.flattenDiagnosticMessageText(d.messageText, '\n');
    if (!d.file) return { severity, file: input.name, line: 1, column: 1, message };
    const { line, character } = d.file.getLineAndCharacterOfPosition(d.start ?? 0);
    return { severity, file: displayName(d.file.fileName), line: line + 1, column: character + 1, message };
  };
  for (const source of sources) {
    for (const d of program.getSyntacticDiagnostics(source)) errors.push(toDiagnostic(d, 'error'));
  }
  if (errors.length === 0) {
    for (const source of sources) {
      for (const d of program.getSemanticDiagnostics(source)) {
        // An import nothing provides is a build error (npm packages and Node modules are not available).
        if (d.code === 2307 || d.code === 2792) errors.push(toDiagnostic({ ...d, messageText: `${ts.flattenDiagnosticMessageText(d.messageText, '\n')}; a Package may import \`svc:\` modules, its own files by relative path and its declared dependencies` }, 'error'));
        else warnings.push({ ...toDiagnostic(d, 'warning'), message: `type error: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}` });
      }
    }
    program.emit(undefined, undefined, undefined, true);
  }
  return { ts, program, checker, entry, sources, displayName, declarations, errors, warnings };
}
