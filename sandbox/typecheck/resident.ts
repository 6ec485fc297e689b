// A type checker kept across programs. A new TypeChecker costs more than checking a small
// program with it: merging the library's globals (initializeTypeChecker) and resolving the
// library types a program uses (Array, String, JSON…) again every time. A resident checker
// is made once over the declarations alone; each program is then named and its imports
// listed as a Program would (a light Program of its own only when it has a dynamic import:
// a Program per check was about a fifth of a check's CPU, in code V8 never optimizes,
// factories.ts), and bound and checked by the resident checker. Programs
// checked this way are modules that cannot reach into others (checker.ts `batchable`), as
// for a batch in one Program: what one program makes in the checker (its types, links,
// diagnostics) is reachable by no other. What the checker keeps grows with each program, so
// it is made anew after RESIDENT_PROGRAMS programs or RESIDENT_SOURCE_CHARACTERS of source.
import type TypeScript from 'typescript';

/** Programs one resident checker checks before it is made anew (what it keeps of them: about 40 KiB each for a 500-character program). */
export const RESIDENT_PROGRAMS = 128;
/** Source characters one resident checker checks before it is made anew (its links and types of each program's AST stay until then). */
export const RESIDENT_SOURCE_CHARACTERS = 512 * 1024;
/**
 * TypeScript's checker looks for a "did you mean" only for the first this many names it fails
 * to resolve in its life (its maximumSuggestionCount): in a resident checker, in all its
 * programs together, whichever token sent them.
 */
export const SUGGESTED_NAMES = 10;

/** What a check asks of its Program: the checker, and the file's syntactic and semantic diagnostics. */
export interface CheckView {
  checker: TypeScript.TypeChecker;
  syntactic(file: TypeScript.SourceFile): readonly TypeScript.Diagnostic[];
  semantic(file: TypeScript.SourceFile): readonly TypeScript.Diagnostic[];
}

/** A Program of the given program files, over the declarations or (`alone`) of them only. */
export type MakeProgram = (programFiles: readonly TypeScript.SourceFile[], alone?: boolean) => TypeScript.Program;

/** The binder is TypeScript's own, not in its public typings; without it programs are checked in a Program of their own. */
type Bind = (file: TypeScript.SourceFile, options: TypeScript.CompilerOptions) => void;

/** What a Program sets on each of its files, besides what the parser did (TypeScript's own fields, not in its public typings). */
interface ProgramFileFields {
  path: string;
  resolvedPath: string;
  originalFileName: string;
  imports: readonly TypeScript.StringLiteral[];
  moduleAugmentations: readonly TypeScript.StringLiteral[];
  ambientModuleNames: readonly string[];
  parseDiagnostics: readonly TypeScript.Diagnostic[];
}

export function residentSupported(ts: typeof TypeScript): boolean {
  return typeof (ts as unknown as { bindSourceFile?: unknown }).bindSourceFile === 'function';
}

export class ResidentChecker {
  private readonly base: TypeScript.Program;
  private readonly checker: TypeScript.TypeChecker;
  private programs = 0;
  private characters = 0;
  /** Errors in the programs checked so far: at least as many as the names it failed to resolve. */
  private errors = 0;
  /**
   * The last program checked had errors past the first SUGGESTED_NAMES of this checker's life,
   * so a name it misspelt may lack the suggestion a checker of its own would give: it is to be
   * checked again by a new one (checker.ts). Counting errors, not failed names, renews a
   * little early, never late; a renewal costs ~3.5 ms, so it comes once per ten errors, not
   * once per program with an error (bench/PROFILE.md, round 76).
   */
  suggestionsSpent = false;

  constructor(
    private readonly ts: typeof TypeScript,
    private readonly makeProgram: MakeProgram,
  ) {
    this.base = makeProgram([]);
    this.checker = this.base.getTypeChecker();
  }

  /** Whether it has checked its share, or may have spent its suggestions, and should be made anew. */
  get spent(): boolean {
    return this.programs >= RESIDENT_PROGRAMS || this.characters >= RESIDENT_SOURCE_CHARACTERS || this.errors >= SUGGESTED_NAMES;
  }

  /**
   * Readies `file` (parsed under a normalized absolute name no other program of this checker
   * had) for checking and answers the view to check it with: what a Program sets on its files
   * (path, imports) is set, then the resident checker binds and checks it.
   */
  view(file: TypeScript.SourceFile): CheckView {
    this.programs++;
    this.characters += file.text.length;
    const syntactic = this.nameAsProgramWould(file);
    (this.ts as unknown as { bindSourceFile: Bind }).bindSourceFile(file, this.base.getCompilerOptions());
    const base = this.base;
    const error = this.ts.DiagnosticCategory.Error;
    return {
      checker: this.checker,
      syntactic,
      // The base Program's path for a file's diagnostics: TypeScript's own (comment directives, skipped codes) with the resident checker.
      semantic: (f) => {
        const found = base.getSemanticDiagnostics(f);
        const before = this.errors;
        for (const diagnostic of found) if (diagnostic.category === error) this.errors++;
        // A first program's own errors past the cap are capped as in a Program of its own.
        this.suggestionsSpent = before > 0 && this.errors > before && this.errors > SUGGESTED_NAMES;
        return found;
      },
    };
  }

  /**
   * Sets what a Program sets on a file of a module (its path and the module names it
   * imports, which the checker reads when it names a type in a message) and answers its
   * syntactic diagnostics. A dynamic import or an import type is listed by a walk of the
   * whole file that is TypeScript's own: such a file gets a light Program of its own (of it
   * alone: what a Program sets on a file does not depend on the others).
   */
  private nameAsProgramWould(file: TypeScript.SourceFile): (file: TypeScript.SourceFile) => readonly TypeScript.Diagnostic[] {
    const ts = this.ts;
    if (file.flags & (ts.NodeFlags as unknown as { PossiblyContainsDynamicImport: number }).PossiblyContainsDynamicImport) {
      const own = this.makeProgram([file], true);
      return (f) => own.getSyntacticDiagnostics(f);
    }
    const fields = file as unknown as ProgramFileFields;
    fields.path = fields.resolvedPath = fields.originalFileName = file.fileName;
    const imports: TypeScript.StringLiteral[] = [];
    for (const statement of file.statements) {
      const specifier =
        ts.isImportDeclaration(statement) || ts.isExportDeclaration(statement)
          ? statement.moduleSpecifier
          : ts.isImportEqualsDeclaration(statement) && ts.isExternalModuleReference(statement.moduleReference)
            ? statement.moduleReference.expression
            : undefined;
      if (specifier && ts.isStringLiteral(specifier) && specifier.text) imports.push(specifier);
    }
    fields.imports = imports;
    // A module's `declare module "…"` would be an augmentation: such a program is never resident (checker.ts `batchable`).
    fields.moduleAugmentations = [];
    fields.ambientModuleNames = [];
    // A TypeScript file's syntactic diagnostics are its parser's (a Program adds some only to JavaScript files).
    return () => fields.parseDiagnostics;
  }
}
