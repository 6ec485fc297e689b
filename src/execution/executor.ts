// One run end to end: audit `started`, prepare Packages, type-check and compile (cached,
// ./compile-cache.ts), dispatch to a runner with the host dispatcher, flush decision
// summaries, audit `finished` with the server-log usage line (./run-record.ts), and the
// execute result. Requests refused before the program runs get the same audit pair.
import type { HostCallSlots } from './host-call-slots';
import { auditVariables, type AuditWriter, type ExecutionRecord, type ServerLog } from '../audit';
import type { AllowsMode, Limits } from '../config';
import { RunDecisions, type PermissionPolicy } from '../policy';
import { runTokenUsage, type HostModule, type RunServices } from '../stdlib';
import type { FilledVfs } from '../vfs';
import type { CompileResult, HostHandler, RunJob, RunLimits, RunnerPool, RunOutcome, Typechecker, TypecheckMode } from '../../sandbox';
import type { PreparedPackages } from '../packages';
import { confirmDenial, HostDispatcher } from './host-dispatch';
import { executeResult, type ExecuteError, type ExecutionReport } from './result';
import { reportRunFailure } from '../telemetry';
import { COMPILE_CACHE_MEGABYTES, CompileCache } from './compile-cache';
import { RunApprovals, type Approvals, type Elicitation } from '../approvals';
import { DEFAULT_APPROVAL_TIMEOUT_SECS } from '../blueprints';
import { guestModules, guestSources, runLimits } from './run-job';
import { CANCELLED, RunCancellations, type RunCancellation } from './run-cancellation';
import { NO_USAGE, recordFinished, recordRefused, sourceFacts, type ExecutionRecordBase, type RunUsage } from './run-record';
import type { ReplayPlan } from '../../sandbox/journal/entries';

import type { JournalledRun, RunJournals } from './journals';
import type { ResumeStore, RunHandle, RunStart } from '../runs';
import type { Approval } from '../approvals';

/** Where a run came in (the audit record's `entry_point` owns the list). */
export type EntryPoint = ExecutionRecord['entry_point'];

/** The Blueprint facts a run needs (the version in force when it starts). */
export interface RunBlueprint {
  name: string;
  hash: string;
  policy: PermissionPolicy;
  /** The Packages the Blueprint lists (the program may import them). */
  packages?: readonly string[];
  /** Whether the program is type-checked before it runs (default `on`; needs the executor's checker). */
  typecheck?: TypecheckMode;
  /** How long an `ask-human` approval waits for an answer (default 24 h). */
  approvalTimeoutSecs?: number;
}

/** Prepares a Blueprint's Packages for a run (src/packages); a failure names what is missing. */
export interface PackagePreparer {
  prepare(blueprint: { name: string; hash: string; packages: readonly string[] }): Promise<{ ok: true; value: PreparedPackages } | { ok: false; message: string }>;
}

/** What a run's services (file area, session state, secrets, git, http) are built from. */
export interface RunServicesRequest<B extends RunBlueprint = RunBlueprint> {
  sessionId: string;
  /** The token the run is for (its name): per-token budgets and its disk budget count against it. */
  principal: string;
  /** The very Blueprint object the run started with: its services never look it up again by name. */
  blueprint: B;
  fileArea: FilledVfs;
  harnessSecrets: Readonly<Record<string, string>>;
  variables: Readonly<Record<string, string>>;
  /** A one-off run's throw-away session: its area and state go when the run returns. */
  throwaway: boolean;
}

/** One run in a session: the REST one-off, the REST session execute and the MCP tool. */
export interface ExecutionRequest<B extends RunBlueprint = RunBlueprint> {
  entryPoint: EntryPoint;
  principal: string;
  sessionId: string;
  /** Resolved once by the caller; policy, packages and the services all come from this one version. */
  blueprint: B;
  variables: Record<string, string>;
  cwd: string;
  code: string;
  /** The session's filled file area and its harness secrets (services are built here, once). */
  fileArea: FilledVfs;
  harnessSecrets: Readonly<Record<string, string>>;
  throwaway?: boolean;
  executionId?: string;
  /** Aborted when the requester has gone (a one-off run's closed connection): the run ends as `cancelled`. */
  signal?: AbortSignal;
  /**
   * Nobody outside the server learns the run's id before its answer (a one-off request that
   * waits for it): its record may be written with its result (RunStart.writeBehind), and is
   * committed before the run's first host call reaches outside.
   */
  recordWriteBehind?: boolean;
  /** Replay this journal first, then go on live (fork, resume). */
  replay?: ReplayPlan;
  /** The MCP session that started the run, when its client declared `elicitation`: `ask-human` calls are also put to it. */
  elicitation?: Elicitation;
  /**
   * A run parked for approval by an earlier server, resumed from its journal (`replay`) after
   * the restart: its record is the same one, its approvals (answered, or still pending: the
   * same ids waited on again) answer its calls again (no new approval is asked), its audit
   * `started` record is the first server's (none is written again), and its time limit goes
   * on with what it had left.
   */
  resumed?: { approvals: Approval[]; timeMs: number };
}

/** A request refused before anything ran (unknown Blueprint, invalid bindings, ...). */
export interface RefusedRequest {
  entryPoint: EntryPoint;
  principal: string;
  sessionId?: string;
  blueprintName: string;
  blueprintHash?: string;
  variables?: Record<string, string>;
  code: string;
  /** `error_class` in the audit record. */
  errorClass: string;
  executionId?: string;
}

/** A run's record fields: a run always has its session and Blueprint hash. */
type RunRecordBase = ExecutionRecordBase & Required<Pick<ExecutionRecordBase, 'session_id' | 'blueprint_hash'>>;

/** `B` is the Blueprint type the caller resolves (the server's registry `Blueprint`), so a request cannot carry a cut-down copy. */
export interface ExecutorOptions<B extends RunBlueprint = RunBlueprint> {
  pool: RunnerPool;
  /** The server's cancellation: aborted at the end of the shutdown grace; every run listens. */
  shutdown: AbortSignal;
  /** Builds a run's services; without it a run has none (tests of the run path alone). */
  runServices?: (request: RunServicesRequest<B>) => RunServices;
  /** Host calls in flight server-wide and per token; without it only the per-run bound applies. */
  hostCalls?: HostCallSlots;
  modules: ReadonlyMap<string, HostModule>;
  /** Without it a Blueprint that lists Packages cannot run (package_resolution). */
  packages?: PackagePreparer;
  /** Type checks programs against the declarations in scope; without it nothing is checked. */
  typecheck?: Typechecker;
  /** Parks `ask-human` calls until a person answers; without it they count as denials. */
  approvals?: Approvals;
  audit: AuditWriter;
  log: ServerLog;
  limits: Limits;
  allows: AllowsMode;
  newId: () => string;
  now?: () => number;
  /** Keeps runs' journals (tapes, replay, fork); without it nothing is kept. */
  journals?: RunJournals;
  /** Keeps a record of every run (src/runs); without it runs leave none and cannot be cancelled by id. */
  runs?: { begin(start: RunStart): RunHandle; adopt?(executionId: string): RunHandle | null };
  /** Keeps the resume state of one-off runs parked for approval, so they survive a restart (src/runs/resumes.ts). */
  resumes?: ResumeStore;
}

/** The entry point as the run record names it. */
const RECORD_ENTRY_POINT = { http: 'rest', session: 'session', mcp: 'mcp' } as const satisfies Record<EntryPoint, RunStart['entryPoint']>;

export class Executor<B extends RunBlueprint = RunBlueprint> {
  private readonly now: () => number;
  private readonly compiled: CompileCache;
  private readonly cancellations: RunCancellations;

  constructor(private readonly options: ExecutorOptions<B>) {
    this.now = options.now ?? Date.now;
    this.cancellations = new RunCancellations(options.shutdown);
    this.compiled = new CompileCache((options.limits.compile_cache_size ?? COMPILE_CACHE_MEGABYTES) * 1024 * 1024);
  }

  /** Module names a program may import in a run with these services (`svc:` and `@mcp/` modules; Packages are added per run). */
  availableModules(services: RunServices = {}, modules: ReadonlyMap<string, HostModule> = this.options.modules): string[] {
    return [...modules.values()]
      // The `web` module serves the platform globals (fetch, crypto.subtle); it is not importable.
      .filter((m) => m.name.includes(':') || m.name.startsWith('@'))
      .filter((m) => !m.availableFor || m.availableFor(services))
      .map((m) => m.name)
      .sort();
  }

  /**
   * Readies what the first run under this Blueprint would otherwise wait for: its Packages
   * prepared and the type checker of its declarations (the modules a one-off run with
   * `services` has, and the Packages'). Nothing runs and nothing is recorded; a failure here
   * is the first run's to report.
   */
  async warm(blueprint: Pick<RunBlueprint, 'name' | 'hash' | 'packages' | 'typecheck'>, services: RunServices): Promise<void> {
    const listed = blueprint.packages ?? [];
    let declarations: readonly string[] = [];
    if (listed.length > 0) {
      if (!this.options.packages) return;
      const preparation = await this.options.packages.prepare({ name: blueprint.name, hash: blueprint.hash, packages: listed });
      if (!preparation.ok) return;
      declarations = preparation.value.declarations;
    }
    const modules = this.options.modules;
    const available = this.availableModules(services, modules);
    // A compile starts the compile workers and esbuild's service, and runs their code once.
    void this.compiled.compile({ source: WARM_PROGRAM, sourceHash: sourceFacts(WARM_PROGRAM).source_hash, availableModules: [...available, ...listed], unavailable: {} }).catch(() => {});
    const mode = blueprint.typecheck ?? 'on';
    if (!this.options.typecheck || mode === 'off') return;
    this.options.typecheck.warm([{ modules: [...available.map((name) => modules.get(name)!.declarations), ...declarations], mode }]);
  }

  /** Writes the audit pair for a request that never reached the program. */
  refuse(request: RefusedRequest): string {
    const executionId = request.executionId ?? this.options.newId();
    recordRefused(this.options.audit, {
      type: 'execution',
      execution_id: executionId,
      entry_point: request.entryPoint,
      principal: request.principal,
      blueprint: request.blueprintName,
      vars: auditVariables(request.variables ?? {}),
      ...(request.sessionId ? { session_id: request.sessionId } : {}),
      ...(request.blueprintHash ? { blueprint_hash: request.blueprintHash } : {}),
      ...sourceFacts(request.code),
    }, request.errorClass);
    return executionId;
  }

  async execute(request: ExecutionRequest<B>): Promise<ExecutionReport> {
    const { audit } = this.options;
    const executionId = request.executionId ?? this.options.newId();
    const ids = { executionId, sessionId: request.sessionId };
    const base: RunRecordBase = {
      type: 'execution',
      execution_id: executionId,
      entry_point: request.entryPoint,
      session_id: request.sessionId,
      principal: request.principal,
      blueprint: request.blueprint.name,
      blueprint_hash: request.blueprint.hash,
      vars: auditVariables(request.variables),
      ...sourceFacts(request.code),
    };
    // Two records per execute request (server-operations 7.6): a resumed run's `started` was written when it came in.
    if (!request.resumed) audit.write({ ...base, event: 'started' });
    const started = this.now();
    const services =
      this.options.runServices?.({
        sessionId: request.sessionId,
        principal: request.principal,
        blueprint: request.blueprint,
        fileArea: request.fileArea,
        harnessSecrets: request.harnessSecrets,
        variables: request.variables,
        throwaway: request.throwaway === true,
      }) ?? {};
    this.options.journals?.started(executionId, request.principal);
    const record = this.beginRecord(request, executionId);
    let journalled: JournalledRun | null = null;
    let report: ExecutionReport | undefined;
    const parking = this.parking(request, executionId);
    // The server stopping, the requester leaving or a cancel through the record ends the run.
    const cancellation = this.cancellations.open([request.signal, record?.signal]);
    try {
      report = await this.run(request, base, ids, services, started, record, cancellation, (run) => (journalled = run), parking);
      return report;
    } catch (error) {
      this.options.log.error('svc_server::execute', 'a run failed in the server', { execution_id: executionId, error: (error as Error).message });
      throw error;
    } finally {
      cancellation.close();
      services.endOfRun?.();
      this.options.journals?.finished(executionId, journalled);
      // Parked when the server stopped: its record and resume state wait for the next server.
      if (parking.parked() && this.options.shutdown.aborted) record?.leaveForRestart();
      else {
        parking.forget();
        record?.finish(report?.response ?? { ...ids, result: null, console: [], error: { kind: 'runtime_error', message: 'the server failed while running the program; see the server log' } });
      }
    }
  }

  /**
   * What keeps a run's resume state while it is parked for approval: a one-off run's only
   * (a session's file area and an MCP session do not outlive the server) and only one given
   * no harness values (they are secrets, never stored).
   */
  private parking(request: ExecutionRequest, executionId: string): RunParking {
    const store = this.options.resumes;
    if (!store || request.throwaway !== true || Object.keys(request.harnessSecrets).length > 0) return { parked: () => false, forget: () => {} };
    let parked = false;
    let kept = request.resumed !== undefined;
    const onSuspended: RunJob['onSuspended'] = (suspended) => {
      parked = suspended !== null;
      try {
        if (suspended) {
          store.keep({ executionId, owner: request.principal, sessionId: request.sessionId, entryPoint: request.entryPoint, blueprint: { name: request.blueprint.name, hash: request.blueprint.hash }, code: request.code, variables: request.variables, journal: suspended.entries, timeMs: suspended.timeMs });
          kept = true;
        }
      } catch (error) {
        this.options.log.error('svc_server::runs', 'could not keep a parked run\'s resume state; it will not survive a restart', { execution_id: executionId, error: (error as Error).message });
      }
    };
    return {
      onSuspended,
      parked: () => parked,
      forget: () => {
        if (kept) store.drop(executionId);
      },
    };
  }

  /** The run's record (queued); a store that cannot be written is logged and the run goes on unrecorded. */
  private beginRecord(request: ExecutionRequest, executionId: string): RunHandle | null {
    if (!this.options.runs) return null;
    try {
      if (request.resumed) return this.options.runs.adopt?.(executionId) ?? null;
      return this.options.runs.begin({
        executionId,
        owner: request.principal,
        sessionId: request.sessionId,
        blueprint: request.blueprint.name,
        entryPoint: RECORD_ENTRY_POINT[request.entryPoint],
        ...(request.recordWriteBehind ? { writeBehind: true } : {}),
      });
    } catch (error) {
      this.options.log.error('svc_server::runs', 'could not record a run; it runs without a record', { execution_id: executionId, error: (error as Error).message });
      return null;
    }
  }

  private async run(request: ExecutionRequest, base: RunRecordBase, ids: { executionId: string; sessionId: string }, services: RunServices, started: number, record: RunHandle | null, cancellation: RunCancellation, keepJournal: (run: JournalledRun) => void, parking: RunParking): Promise<ExecutionReport> {
    const { onSuspended } = parking;
    const { audit } = this.options;
    const executionId = ids.executionId;
    // `@mcp/<server>` Packages the program imports are discovered for this run only.
    const mcp = services.mcp ? await services.mcp.prepare(request.code) : null;
    const modules: ReadonlyMap<string, HostModule> = mcp?.modules.length ? new Map([...this.options.modules, ...mcp.modules.map((m) => [m.name, m] as const)]) : this.options.modules;
    const discoveryWarnings = mcp?.warnings ?? [];
    // Packages first: a run whose Packages cannot load does not start (nothing runs or is billed).
    let prepared: PreparedPackages | null = null;
    const listed = request.blueprint.packages ?? [];
    if (listed.length > 0) {
      const preparation = this.options.packages
        ? await this.options.packages.prepare({ name: request.blueprint.name, hash: request.blueprint.hash, packages: listed })
        : { ok: false as const, message: 'this svc cannot load Packages here' };
      if (!preparation.ok) {
        const error: ExecuteError = { kind: 'package_resolution', message: preparation.message };
        this.finish(base, { ...NO_USAGE, outcome: 'error', errorClass: 'package_resolution', wallMs: this.now() - started });
        return executeResult(ids, null, [], error, discoveryWarnings);
      }
      prepared = preparation.value;
    }
    // Blocking type errors are compile errors; a passing check may add derived schema
    // arguments (llm.call<T>). The program compiles beside its check (compiling has no side
    // effects): a check that changes nothing finds the compile done or under way.
    const unavailable = mcp?.unavailable ?? {};
    const listedPackages = prepared?.listed ?? [];
    const checking = this.typecheck(request, base.source_hash, services, modules, prepared);
    const compiling = checking instanceof Promise ? this.compile(request.code, base.source_hash, services, modules, unavailable, listedPackages) : null;
    // Its failure is reported by the awaited compile below, or not at all when the check refuses the program.
    void compiling?.catch(() => {});
    const checked = await checking;
    // Cancelled while it was checked or compiled (the shutdown grace ended, the requester
    // left): the answer is due now. A compile cannot be stopped, so it is not waited for
    // (it still fills the cache); the shutdown drops connections soon after its deadline.
    const cancelledBeforeRun = () => {
      const error: ExecuteError = { kind: 'cancelled', message: cancelledByRequest(record) ?? 'cancelled: the run was stopped before it started (the server is shutting down, or the client went away)' };
      this.finish(base, { ...NO_USAGE, outcome: 'cancelled', errorClass: 'cancelled', wallMs: this.now() - started });
      return executeResult(ids, null, [], error, discoveryWarnings);
    };
    if (cancellation.aborted) return cancelledBeforeRun();
    const source = checked.ok ? checked.source : request.code;
    const compiled = checked.ok
      ? await cancellation.race(
          compiling && source === request.code ? compiling : this.compile(source, source === request.code ? base.source_hash : sourceFacts(source).source_hash, services, modules, unavailable, listedPackages),
        )
      : checked;
    if (compiled === CANCELLED) return cancelledBeforeRun();
    if (!compiled.ok) {
      const wallMs = this.now() - started;
      const error: ExecuteError = { kind: 'compile_error', message: compiled.error.message, diagnostics: compiled.error.diagnostics };
      this.finish(base, { ...NO_USAGE, outcome: 'error', errorClass: 'compile_error', wallMs });
      reportRunFailure(request.entryPoint, error, request.code);
      return executeResult(ids, null, [], error, discoveryWarnings);
    }

    const decisions = new RunDecisions(
      {
        execution_id: executionId,
        session_id: request.sessionId,
        blueprint: request.blueprint.name,
        blueprint_hash: request.blueprint.hash,
        principal: request.principal,
        cwd: request.cwd,
        variables: request.variables,
        policy: request.blueprint.policy,
      },
      audit,
      this.options.allows,
    );
    let outcome: RunOutcome;
    let dispatcher: HostDispatcher | undefined;
    let imports: Record<string, string[]> = {};
    let importedGuests: Record<string, string> = {};
    const approvals = this.options.approvals
      ? new RunApprovals(
          this.options.approvals,
          { execution_id: executionId, session_id: request.sessionId, blueprint: request.blueprint.name, token_name: request.principal, timeoutSecs: request.blueprint.approvalTimeoutSecs ?? DEFAULT_APPROVAL_TIMEOUT_SECS },
          request.elicitation,
          request.resumed?.approvals,
        )
      : undefined;
    try {
      dispatcher = new HostDispatcher({
        run: {
          executionId,
          sessionId: request.sessionId,
          principal: request.principal,
          blueprintName: request.blueprint.name,
          variables: request.variables,
          signal: cancellation.signal,
          services,
        },
        modules,
        decisions,
        packages: new Set(prepared?.packages.map((p) => p.script.name) ?? []),
        ...(approvals ? { askHuman: (signal: AbortSignal) => approvals.asker(signal) } : {}),
      });
      // The sandbox provides the svc: modules the program or any Package imports.
      record?.setState('running');
      const imported = [...new Set([...compiled.script.hostModules.filter((name) => modules.has(name)), ...(prepared?.hostModules ?? [])])].sort();
      imports = guestModules(imported, modules);
      importedGuests = guestSources(imported, modules);
      outcome = await this.options.pool.run(
        {
          executionId,
          script: compiled.script,
          hostModules: imports,
          guestModules: importedGuests,
          limits: resumedLimits(replayLimits(runLimits(this.options.limits), request.replay), request.resumed),
          signal: cancellation.signal,
          tenant: request.principal,
          ...(prepared ? { packages: prepared.packages } : {}),
          ...(request.replay ? { journal: request.replay } : {}),
          ...(onSuspended ? { onSuspended } : {}),
        },
        recordedBeforeReachingOut(record, request.recordWriteBehind === true, this.options.hostCalls ? this.options.hostCalls.wrap(request.principal, dispatcher.handle) : dispatcher.handle),
      );
    } finally {
      dispatcher?.end();
      cancellation.end();
      decisions.flush();
    }

    const error: ExecuteError | null = outcome.error ? confirmDenial({ ...outcome.error }, dispatcher?.denials ?? []) : null;
    if (error?.kind === 'cancelled') error.message = cancelledByRequest(record) ?? error.message;
    reportRunFailure(request.entryPoint, error, request.code);
    // Parked when the server stopped, it is not finished: the server that resumes it writes its `finished`.
    if (!(parking.parked() && this.options.shutdown.aborted)) this.finish(base, {
      outcome: outcome.outcome,
      errorClass: error?.kind,
      wasmFuel: outcome.wasmFuel,
      hostFuel: outcome.hostFuel,
      memoryPeak: outcome.memoryPeak,
      wallMs: outcome.wallMs,
      tokens: runTokenUsage(services.models),
    });
    const report = executeResult(ids, outcome.result, outcome.console, error, discoveryWarnings, checked.ok ? checked.warnings : []);
    if (outcome.lost) report.lost = true;
    if (outcome.journal) {
      keepJournal({
        executionId,
        principal: request.principal,
        sessionId: request.sessionId,
        blueprint: { name: request.blueprint.name, hash: request.blueprint.hash },
        code: request.code,
        variables: request.variables,
        packages: prepared?.packages.map((p) => ({ name: p.script.name, version: p.version, digest: `sha256:${p.script.key}`, listed: p.listed })) ?? [],
        modules: imports,
        // Generated per run (an @mcp/ server's tools): a replay elsewhere needs them; svc: modules' code it has.
        guestModules: Object.fromEntries(Object.entries(importedGuests).filter(([name]) => name.startsWith('@mcp/'))),
        journal: outcome.journal,
        result: report.response,
        console: outcome.console,
        fuel: { wasm: outcome.wasmFuel, host: outcome.hostFuel, budget: this.options.limits.max_execution_fuel },
      });
    }
    return report;
  }

  /** The program checked against exactly the declarations this run has in scope. */
  private typecheck(request: ExecutionRequest, sourceHash: string, services: RunServices, modules: ReadonlyMap<string, HostModule>, prepared: PreparedPackages | null) {
    const mode = request.blueprint.typecheck ?? 'on';
    if (!this.options.typecheck || mode === 'off') return { ok: true as const, source: request.code, warnings: [] };
    const inScope = this.availableModules(services, modules).map((name) => modules.get(name)!.declarations);
    return this.options.typecheck.check({ source: request.code, sourceHash, mode, modules: [...inScope, ...(prepared?.declarations ?? [])], signal: this.options.shutdown, tenant: request.principal });
  }

  /** Compiles through the cache, keyed by the source hash and the modules in scope. */
  private compile(code: string, sourceHash: string, services: RunServices, modules: ReadonlyMap<string, HostModule>, unavailable: Readonly<Record<string, string>>, packages: readonly string[]): Promise<CompileResult> {
    return this.compiled.compile({ source: code, sourceHash, availableModules: [...this.availableModules(services, modules), ...packages], unavailable });
  }

  private finish(base: RunRecordBase, usage: RunUsage): void {
    recordFinished(this.options.audit, this.options.log, base, usage);
  }
}

/** What keeps a parked one-off run's resume state (Executor.parking). */
interface RunParking {
  onSuspended?: RunJob['onSuspended'];
  /** It is parked now (its resume state kept). */
  parked(): boolean;
  /** Its resume state goes (it finished). */
  forget(): void;
}

/** A write-behind run's record is committed before its first host call (anything reaching outside goes through one). */
function recordedBeforeReachingOut(record: RunHandle | null, writeBehind: boolean, handle: HostHandler): HostHandler {
  if (!record || !writeBehind) return handle;
  let persisted = false;
  return (request) => {
    if (!persisted) {
      persisted = true;
      record.persist();
    }
    return handle(request);
  };
}

/** A replay's journal is kept whole again: its bound covers what it replays. */
function replayLimits(limits: RunLimits, replay: ReplayPlan | undefined): RunLimits {
  if (!replay) return limits;
  const bytes = JSON.stringify(replay.entries).length;
  return { ...limits, replayBytes: bytes, journalBytes: Math.max(limits.journalBytes ?? 0, bytes * 2) };
}

/** A run resumed after a restart: its time limit goes on with what it had left. */
function resumedLimits(limits: RunLimits, resumed: ExecutionRequest['resumed']): RunLimits {
  return resumed && resumed.timeMs > 0 && limits.timeMs > 0 ? { ...limits, timeMs: Math.min(limits.timeMs, resumed.timeMs) } : limits;
}

/** The message of a run cancelled through its record (POST /v1/runs/{id}/cancel), else null. */
function cancelledByRequest(record: RunHandle | null): string | null {
  return record?.signal.aborted && typeof record.signal.reason === 'string' ? record.signal.reason : null;
}

/** What a warm-up compiles: a program like the quick start's. */
const WARM_PROGRAM = 'export function main(): string { return "hello"; }';
