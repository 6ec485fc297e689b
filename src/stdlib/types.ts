// The contract between the execution layer and the host side of every `svc:` module.
// A module is a table of plain operations `(call, args) => result`; each validates its
// arguments, asks `call.gate(capability, context)` before any effect, then does the work.
// The guest side (inside the isolate) calls them synchronously through the runner.
import type { DecisionSource } from '../audit';
import type { RunResources } from './resources';
import type { FileArea } from '../vfs';
import type { GitServices } from './git/services';
import type { HttpServices } from './http/services';
import type { ModelServices } from './llm/services';
import type { SessionState, SessionStates } from './session/state';

/** What an operation may know about the run it serves. */
export interface RunContext {
  readonly executionId: string;
  readonly sessionId: string;
  readonly principal: string;
  /** The Blueprint in force for this run (typed by src/blueprints). */
  readonly blueprintName: string;
  readonly variables: Readonly<Record<string, string>>;
  /** Aborted when the run ends (limit, cancellation): long host work should stop. */
  readonly signal: AbortSignal;
  /** Per-run services provided by other capabilities (file area, session state, ...). */
  readonly services: RunServices;
  /** Host-side state of multi-step operations (writers, ...), by handle; dies with the run. */
  readonly resources: RunResources;
}

/** One capability check an operation needs: derived from its (validated) arguments. */
export interface GateRequest {
  capability: string;
  context: Record<string, unknown>;
  /** svc:security.check() only: the main-only invariant does not apply. */
  check?: boolean;
}

/** A gate the policy allowed, with the context as the policy saw it (paths normalised). */
export interface AllowedGate {
  capability: string;
  context: Record<string, unknown>;
}

/** One host call: the run plus who is calling and how to gate and charge. */
export interface HostCall extends RunContext {
  /** `main` or the Package whose code made the call (attributed by the runtime). */
  readonly caller: string;
  /**
   * A further check while the operation runs (a redirect hop, each branch a clone
   * fetched, the write after a code edit's read). Asks the policy, records the decision,
   * throws the PermissionDeniedError the program sees on a refusal, charges GATE fuel and
   * returns the normalised context. The operation's own gates run before it starts.
   */
  gate(capability: string, context: Record<string, unknown>, options?: { skipMainInvariant?: boolean }): Record<string, unknown>;
  /** A silent check for filtered listings: no record, no throw. */
  probe(capability: string, context: Record<string, unknown>): boolean;
  /** Records a further refusal after an allow (read_only, quota, egress_guard) and returns the error to throw. */
  refuse(capability: string, context: Record<string, unknown>, source: Exclude<DecisionSource, 'policy' | 'invariant' | 'human'>, error: Error): Error;
  /** Host fuel for work done (its cost class). */
  charge(units: number): void;
  /**
   * Sends bytes of the answer's first blob to the runner as they arrive, ahead of the answer,
   * which then holds a StreamedBytes (sandbox) in the blob's place; resolves once the chunk is
   * written, false when the call or its run ended. Absent when the answer must stay whole.
   */
  streamBytes?(chunk: Uint8Array): Promise<boolean>;
  /**
   * Set when the run's journal keeps whole answers: streamBytes may be used only for a blob
   * known to be larger than this many bytes (the journal could not hold it; the first chunk
   * gives the journal up). Absent: streamBytes may be used from the first byte.
   */
  readonly streamBytesPast?: number;
}

/**
 * A host operation is declared with how it is gated; the dispatcher validates, gates and
 * only then runs it. `parse` validates and types the arguments (a TypeError or
 * RangeError naming the parameter, before any check or effect); `gate` derives the
 * capability checks from them; `run` does the work with the allowed (normalised)
 * contexts, in the order `gate` listed them. Multi-step state (writers, downloads) lives
 * host-side in `run.resources`, never in values the guest hands back.
 */
export interface GatedOperation<P = unknown[]> {
  /**
   * Whose rules judge it: the code that made the call (default), or, for a Package's
   * `check()`, the consumer of that Package.
   */
  attribution?: 'caller' | 'consumer';
  parse?: (args: unknown[], run: RunContext) => P | Promise<P>;
  gate: (params: P, run: RunContext) => GateRequest | readonly GateRequest[];
  run: (call: HostCall, params: P, allowed: readonly AllowedGate[]) => unknown | Promise<unknown>;
  /** Its answer holds a secret value: a run's journal (and so a tape) keeps no copy of it. */
  answersSecret?: true;
  /**
   * `parse` takes a long top-level string argument as a TextBytes (sandbox: its UTF-8 bytes)
   * too: arguments too large to parse on the server's event loop then never become a string
   * there (a file's content is written as the bytes it is).
   */
  textAsBytes?: true;
}

/** An operation no capability governs: it must say why (shown in docs and reviews). */
export interface UngatedOperation<P = unknown[]> {
  parse?: (args: unknown[], run: RunContext) => P | Promise<P>;
  gate: 'none';
  ungatedBecause: string;
  run: (call: HostCall, params: P) => unknown | Promise<unknown>;
}

// `any` in the table type: each operation's parameter type is its own.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type HostOperation = GatedOperation<any> | UngatedOperation<any>;

/** Declares a gated operation (typed parameters flow from parse to gate and run). */
export function gated<P = unknown[]>(operation: GatedOperation<P>): HostOperation {
  return operation;
}

/** Declares an operation without a capability, with the reason. */
export function ungated<P = unknown[]>(ungatedBecause: string, operation: Omit<UngatedOperation<P>, 'gate' | 'ungatedBecause'>): HostOperation {
  return { ...operation, gate: 'none', ungatedBecause };
}

export interface HostModule {
  /** `svc:fs`, `svc:http`, ... */
  name: string;
  /** One-line description for search and docs. */
  description: string;
  /** TypeScript declarations (.d.ts text) of the module as programs see it: the folder's declarations.d.ts. */
  declarations: string;
  /** Raw host operations by name. */
  operations: Record<string, HostOperation>;
  /**
   * Optional guest-side code that builds the module's namespace from the raw operations
   * (for classes, response objects, argument defaults): the folder's guest.ts, compiled by
   * the build into one JavaScript expression whose value is its factory
   * `(call, P, raw) => namespace` (src/stdlib/guest-contract.ts). Without it the namespace
   * is one function per operation.
   */
  guest?: string;
  /** When false the module cannot be imported in this run (e.g. svc:git without a git block). */
  availableFor?: (services: RunServices) => boolean;
}

// What the capabilities attach to one run (RunContext.services), declared in one place.
// Each member is optional: a run has only what its Blueprint and its caller gave it, and an
// operation that needs a member it lacks says so. Each member's type is owned by its folder.
export interface RunServices {
  /** Called once when the run ends, whatever its outcome (e.g. an ephemeral area goes). */
  endOfRun?: () => void;
  /** The run's file area (src/vfs): svc:fs, svc:code, downloads and git work in it. */
  files?: FileArea;
  /** Outbound HTTP: the egress guard's dispatcher and the Blueprint's auth proxy rules. */
  http?: HttpServices;
  /** The Blueprint's `git` block; without it svc:git cannot be imported. */
  git?: GitServices;
  /** The Blueprint's models and the server's token budgets; without them svc:llm and svc:embedding cannot be imported. */
  models?: ModelServices;
  /** The session's key/value state (svc:session). */
  sessionState?: { state: SessionState; states: SessionStates };
  /** Value of a declared secret (store or harness), or undefined. */
  secretValue?: (name: string) => string | undefined;
  /** The Package test runner prints every allowed check (`[security] caller=… capability=… context=…`). */
  observeCheck?: (caller: string, capability: string, context: Record<string, unknown>) => void;
  /** Present only under the Package test runner: receives `label(...)` texts. */
  testLabel?: (description: string) => void;
  /** The MCP client (src/mcp/client): the `@mcp/<server>` modules this run imports. */
  mcp?: McpRunServices;
}

/** What a run needs from the MCP client: the imported servers as modules, and an end. */
export interface McpRunServices {
  /** Modules for the imported servers that are available; `unavailable` maps `@mcp/<server>` to the reason. */
  prepare(source: string): Promise<{ modules: HostModule[]; warnings: string[]; unavailable: Record<string, string> }>;
  close(): Promise<void>;
}
