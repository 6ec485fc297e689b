// The contract between the compile pipeline (sandbox/compile) and the runtime
// (sandbox/runner, sandbox/prelude): what a compiled program looks like.

/** Output of compileProgram: one self-contained classic script for the isolate. */
export interface ProgramScript {
  /**
   * JavaScript source of ONE expression: `(function (__svc_rt) { ... return { units,
   * takeFuel, fuelLeft }; })`. The fuel counter and call depth live in that closure,
   * never in the global scope.
   */
  code: string;
  /** Filename used when compiling the script in the isolate (stack frames name it). */
  filename: string;
  /** Source map (v3 JSON) from `code` back to the submitted sources. */
  sourceMap: string;
  /** Submitted sources by file name (`program.ts`, ...), for excerpts. */
  sources: Record<string, string>;
  /** svc: modules the program imports, e.g. ['svc:fs']. */
  hostModules: string[];
  /** True when the program mentions `Temporal` (the runtime loads the polyfill lazily). */
  usesTemporal: boolean;
  /** Content hash of `code`: a runner keeps the source map and source of recent programs by it. */
  key: string;
}

/**
 * A Package compiled for the isolate: ONE expression `(function (__svc_rt) { ... return
 * { units, fuelLeft }; })` under its own filename (`@scope/name/lib.js`), so stack frames
 * name their owner. Its fuel comes from the program's counter in small chunks.
 */
export interface PackageScript {
  name: string;
  code: string;
  filename: string;
  /** Source map (v3 JSON) from `code` back to the Package's `src/*.ts` (composed on first read). */
  sourceMap: string;
  /** svc: modules the Package imports. */
  hostModules: string[];
  /** Packages (its dependencies) it imports. */
  packageImports: string[];
  /** Content hash of `code`: runners keep compiled scripts by it. */
  key: string;
  /** True when the Package mentions `Temporal` (the runtime then loads the polyfill). */
  usesTemporal: boolean;
}

/** How a run ends, in the audit vocabulary (owned here; the pool, the runner and the audit import it). */
export const RUN_OUTCOME_KINDS = ['ok', 'error', 'fuel_exhausted', 'timeout', 'memory_exhausted', 'stack_exhausted', 'cancelled'] as const;
export type RunOutcomeKind = (typeof RUN_OUTCOME_KINDS)[number];

/**
 * The error kinds a run itself ends with (the execute result's `error.kind` adds those of
 * refusals before the run: src/execution/result.ts).
 */
export const RUN_ERROR_KINDS = ['runtime_error', 'permission_denied', 'fuel_exhausted', 'timeout', 'memory_exhausted', 'stack_exhausted', 'cancelled'] as const;
export type RunErrorKind = (typeof RUN_ERROR_KINDS)[number];

/**
 * The sources of a refusal the program sees as PermissionDeniedError (the audit's
 * DecisionSource adds egress_guard and quota); `human`: a person denied an `ask-human` call,
 * or its approval expired.
 */
export const DENIAL_SOURCES = ['policy', 'invariant', 'read_only', 'human'] as const;
export type DenialSource = (typeof DENIAL_SOURCES)[number];

export type CompileResult = { ok: true; script: ProgramScript } | { ok: false; error: CompileErrorReport };

export interface DiagnosticNote {
  line: number;
  column: number;
  message: string;
}

export interface Diagnostic {
  severity: 'error' | 'warning';
  line: number;
  column: number;
  message: string;
  notes?: DiagnosticNote[];
  /** A suggested fix (the type checker's spelling suggestion: "did you mean `readText`?"). */
  help?: string;
}

export interface CompileErrorReport {
  kind: 'compile_error';
  /** Rendered with source excerpt and caret. */
  message: string;
  diagnostics: Diagnostic[];
}

/**
 * esbuild's CommonJS interop helpers that the runtime gives every compiled unit
 * (sandbox/prelude/commonjs.ts), in place of esbuild's own copies that open its output: the
 * compile removes those copies (sandbox/compile/helpers.ts) and the script binds these names
 * from the runtime object's `commonJsHelpers`.
 */
export const COMMONJS_HELPER_NAMES = ['__create', '__defProp', '__getOwnPropDesc', '__getOwnPropNames', '__getProtoOf', '__hasOwnProp', '__export', '__copyProps', '__reExport', '__toESM', '__toCommonJS'] as const;
export type CommonJsHelperName = (typeof COMMONJS_HELPER_NAMES)[number];

/** The runtime object the prelude hands to the compiled script. */
export interface GuestRuntime {
  fuelBudget: number;
  maxDepth: number;
  commonJsHelpers: Readonly<Record<CommonJsHelperName, unknown>>;
  fuelOut(): never;
  /** Receives the fuel left, so usage can be reported. */
  stackOut(fuelLeft: number): never;
  checkCaught(error: unknown): void;
}

export const PROGRAM_FILENAME = 'program.ts';
/** The file name a Package's compiled script runs under (its frames' owner). */
export const packageFilename = (name: string): string => `${name}/lib.js`;
export const SCRIPT_FILENAME = 'svc-program.js';

/**
 * The prelude's entry points, by the number its one entry function takes first: the runner
 * holds one reference into a context for all of them (one handle to take after the prelude
 * has run, not five).
 */
export const ENTRY_POINT = { run: 0, collect: 1, nextTimer: 2, fireTimers: 3, deliver: 4 } as const;

/** A host failure as it crosses to the guest (rebuilt there as the class the program catches). */
export interface HostErrorShape {
  name: string;
  message: string;
  code?: string;
  caller?: string;
  capability?: string;
  reason?: string;
  source?: string;
}

/**
 * The facts of a refusal the host issued, the same at every step: the host remembers them
 * (src/execution/host-dispatch.ts), the guest keeps them beside the error it raised
 * (sandbox/prelude/errors.ts), the run report carries them when that error escapes main
 * (sandbox/prelude/failure.ts, sandbox/runner/protocol.ts) and the execute result's
 * `permission_denied` error names them. `S`: the host knows the source's type.
 */
export interface DenialFacts<S extends string = string> {
  readonly caller: string;
  readonly capability: string;
  readonly source: S;
}

/**
 * The one table from host error to guest class to execute-result kind. Each row is an error
 * a host call may end with that the program catches as that very class: the fields its reply
 * carries besides `name`, `message` and `code` (host: errorReply in
 * src/execution/host-dispatch.ts; guest: guestError in sandbox/prelude/errors.ts, which has
 * a constructor for every row), and the `error.kind` a run reports when the runtime's own
 * instance escapes main (sandbox/pool/outcomes.ts; one the program constructed itself is a
 * runtime_error). Any other host error arrives as an Error carrying the host's name and code.
 */
export const HOST_ERRORS = {
  PermissionDeniedError: { carries: ['caller', 'capability', 'reason', 'source'], escapesAs: 'permission_denied' },
  QuotaExceededError: { carries: [], escapesAs: 'runtime_error' },
  TypeError: { carries: [], escapesAs: 'runtime_error' },
  RangeError: { carries: [], escapesAs: 'runtime_error' },
  SyntaxError: { carries: [], escapesAs: 'runtime_error' },
  Error: { carries: [], escapesAs: 'runtime_error' },
} as const satisfies Record<string, { carries: ReadonlyArray<Exclude<keyof HostErrorShape, 'name' | 'message' | 'code'>>; escapesAs: RunErrorKind }>;
export type HostErrorName = keyof typeof HOST_ERRORS;

/** The table's row for a name (own rows only: a name like `constructor` has none). */
export function hostErrorRow(name: string): (typeof HOST_ERRORS)[HostErrorName] | undefined {
  return Object.prototype.hasOwnProperty.call(HOST_ERRORS, name) ? HOST_ERRORS[name as HostErrorName] : undefined;
}

/**
 * Who made a host call, from the guest's stack (only in runs that load Packages):
 * `caller` owns the innermost program or Package frame; `consumer` is who a Package's
 * `check()` speaks for. `null`: not identifiable (refused as an invariant).
 */
export interface Attribution {
  caller: string | null;
  consumer: string | null;
}

/** The reply to one host call. `fuel` is the host fuel the call cost. */
export type HostReply = ({ ok: true; value: unknown; fuel: number } | { ok: false; error: HostErrorShape; fuel: number }) & {
  /** The answer holds a secret: a run's journal keeps no copy of it (sandbox/journal). */
  withheld?: true;
};

/** Bytes cross the wire (both ways) as `{ [BYTES_TAG]: base64 }` inside JSON. */
export const BYTES_TAG = '__svc_bytes';
