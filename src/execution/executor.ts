// One run end to end: audit `started`, compile, dispatch to a runner with the host
// dispatcher, flush decision summaries, audit `finished`, the server-log usage line, and
// the execute result. Requests refused before the program runs get the same audit pair.
import { createHash } from 'node:crypto';
import { auditVariables, type AuditWriter, type ServerLog } from '../audit';
import type { AllowsMode, Limits } from '../config';
import { RunDecisions, type PermissionPolicy } from '../policy';
import type { HostModule, RunServices } from '../stdlib';
import { compileProgram, type CompileResult, type RunnerPool, type RunOutcome } from '../../sandbox';
import { HostDispatcher } from './host-dispatch';
import { executeResult, type ExecuteError, type ExecutionReport } from './result';
import { metrics, timed } from '../metrics';
import { reportRunFailure } from '../telemetry';

export type EntryPoint = 'http' | 'session' | 'mcp';

/** The Blueprint facts a run needs (the version in force when it starts). */
export interface RunBlueprint {
  name: string;
  hash: string;
  policy: PermissionPolicy;
}

export interface ExecutionRequest {
  entryPoint: EntryPoint;
  principal: string;
  sessionId: string;
  blueprint: RunBlueprint;
  variables: Record<string, string>;
  cwd: string;
  code: string;
  /** Aborted when the server cancels the run (end of the shutdown grace). */
  signal: AbortSignal;
  services?: RunServices;
  executionId?: string;
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

export interface ExecutorOptions {
  pool: RunnerPool;
  modules: ReadonlyMap<string, HostModule>;
  audit: AuditWriter;
  log: ServerLog;
  limits: Limits;
  allows: AllowsMode;
  newId: () => string;
  now?: () => number;
}

/** Compiled programs by source hash: agents often resend the same program (retries, loops). */
const COMPILE_CACHE_SIZE = 256;

const zeroUsage = { fuel: 0, wasm_fuel: 0, host_fuel: 0, memory_peak: 0, model_tokens: 0, embedding_tokens: 0, wall_ms: 0 };

function sourceFacts(code: string) {
  return { source_hash: createHash('sha256').update(code, 'utf8').digest('hex'), source_size: Buffer.byteLength(code, 'utf8') };
}

/** The server-log outcome vocabulary folds every other failure into `error`. */
function logOutcome(outcome: string): string {
  return ['ok', 'fuel_exhausted', 'timeout', 'memory_exhausted'].includes(outcome) ? outcome : 'error';
}

export class Executor {
  private readonly now: () => number;
  private readonly compiled = new Map<string, CompileResult>();

  constructor(private readonly options: ExecutorOptions) {
    this.now = options.now ?? Date.now;
  }

  /** Module names a program may import in a run with these services (svc: modules until Packages exist). */
  availableModules(services: RunServices = {}, modules: ReadonlyMap<string, HostModule> = this.options.modules): string[] {
    return [...modules.values()]
      .filter((m) => !m.availableFor || m.availableFor(services))
      .map((m) => m.name)
      .sort();
  }

  /** Writes the audit pair for a request that never reached the program. */
  refuse(request: RefusedRequest): string {
    const executionId = request.executionId ?? this.options.newId();
    const base = {
      type: 'execution' as const,
      execution_id: executionId,
      entry_point: request.entryPoint,
      principal: request.principal,
      blueprint: request.blueprintName,
      vars: auditVariables(request.variables ?? {}),
      ...(request.sessionId ? { session_id: request.sessionId } : {}),
      ...(request.blueprintHash ? { blueprint_hash: request.blueprintHash } : {}),
      ...sourceFacts(request.code),
    };
    this.options.audit.write({ ...base, event: 'started' });
    this.options.audit.write({ ...base, event: 'finished', outcome: 'error', error_class: request.errorClass, ...zeroUsage });
    return executionId;
  }

  async execute(request: ExecutionRequest): Promise<ExecutionReport> {
    const { audit, log } = this.options;
    const executionId = request.executionId ?? this.options.newId();
    const ids = { executionId, sessionId: request.sessionId };
    const base = {
      type: 'execution' as const,
      execution_id: executionId,
      entry_point: request.entryPoint,
      session_id: request.sessionId,
      principal: request.principal,
      blueprint: request.blueprint.name,
      blueprint_hash: request.blueprint.hash,
      vars: auditVariables(request.variables),
      ...sourceFacts(request.code),
    };
    audit.write({ ...base, event: 'started' });
    const started = this.now();

    // `@mcp/<server>` Packages the program imports are discovered for this run only.
    const mcp = request.services?.mcp ? await request.services.mcp.prepare(request.code) : null;
    const modules: ReadonlyMap<string, HostModule> = mcp?.modules.length ? new Map([...this.options.modules, ...mcp.modules.map((m) => [m.name, m] as const)]) : this.options.modules;
    const warnings = mcp?.warnings ?? [];
    const compiled = await this.compile(request.code, base.source_hash, request.services ?? {}, modules, mcp?.unavailable ?? {});
    if (!compiled.ok) {
      const wallMs = this.now() - started;
      const error: ExecuteError = { kind: 'compile_error', message: compiled.error.message, diagnostics: compiled.error.diagnostics };
      this.finish(base, { outcome: 'error', errorClass: 'compile_error', wasmFuel: 0, hostFuel: 0, memoryPeak: 0, wallMs });
      reportRunFailure(request.entryPoint, error, request.code);
      request.services?.endOfRun?.();
      return executeResult(ids, null, [], error, warnings);
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
    const runEnded = new AbortController();
    const onCancel = () => runEnded.abort();
    request.signal.addEventListener('abort', onCancel, { once: true });
    let outcome: RunOutcome;
    let dispatcher: HostDispatcher | undefined;
    try {
      dispatcher = new HostDispatcher({
        run: {
          executionId,
          sessionId: request.sessionId,
          principal: request.principal,
          blueprintName: request.blueprint.name,
          variables: request.variables,
          signal: runEnded.signal,
          services: request.services ?? {},
        },
        modules,
        decisions,
      });
      outcome = await this.options.pool.run(
        {
          executionId,
          script: compiled.script,
          hostModules: this.guestModules(compiled.script.hostModules, modules),
          guestModules: this.guestSources(compiled.script.hostModules, modules),
          limits: this.runLimits(),
          signal: request.signal,
        },
        dispatcher.handle,
      );
    } finally {
      dispatcher?.end();
      request.signal.removeEventListener('abort', onCancel);
      runEnded.abort();
      decisions.flush();
      request.services?.endOfRun?.();
    }

    const error: ExecuteError | null = outcome.error ? { ...outcome.error } : null;
    reportRunFailure(request.entryPoint, error, request.code);
    this.finish(base, {
      outcome: outcome.outcome,
      errorClass: error?.kind,
      wasmFuel: outcome.wasmFuel,
      hostFuel: outcome.hostFuel,
      memoryPeak: outcome.memoryPeak,
      wallMs: outcome.wallMs,
    });
    return executeResult(ids, outcome.result, outcome.console, error, warnings);
  }

  /** Compiles through a small LRU cache keyed by the source hash and the available modules. */
  private async compile(code: string, sourceHash: string, services: RunServices, modules: ReadonlyMap<string, HostModule>, unavailable: Readonly<Record<string, string>>): Promise<CompileResult> {
    const availableModules = this.availableModules(services, modules);
    const key = `${sourceHash}:${availableModules.join(',')}:${JSON.stringify(unavailable)}`;
    const cached = this.compiled.get(key);
    if (cached) {
      this.compiled.delete(key);
      this.compiled.set(key, cached);
      return cached;
    }
    const result = await timed(metrics.compileDuration, compileProgram({ source: code, availableModules, unavailable }));
    this.compiled.set(key, result);
    if (this.compiled.size > COMPILE_CACHE_SIZE) this.compiled.delete(this.compiled.keys().next().value as string);
    return result;
  }

  private guestSources(imported: string[], modules: ReadonlyMap<string, HostModule>): Record<string, string> {
    const out: Record<string, string> = {};
    for (const name of imported) {
      const guest = modules.get(name)?.guest;
      if (guest) out[name] = guest;
    }
    return out;
  }

  private guestModules(imported: string[], modules: ReadonlyMap<string, HostModule>): Record<string, string[]> {
    const out: Record<string, string[]> = {};
    for (const name of imported) {
      const module = modules.get(name);
      if (module) out[name] = Object.keys(module.operations);
    }
    return out;
  }

  private runLimits() {
    const { limits } = this.options;
    return {
      memoryMb: limits.max_execution_memory,
      timeMs: limits.max_execution_time * 1000,
      fuel: limits.max_execution_fuel,
      stackKib: limits.max_execution_stack,
    };
  }

  private finish(
    base: Record<string, unknown> & { execution_id: string; blueprint: string; session_id: string },
    usage: { outcome: string; errorClass?: string; wasmFuel: number; hostFuel: number; memoryPeak: number; wallMs: number },
  ): void {
    const fuel = usage.wasmFuel + usage.hostFuel;
    this.options.audit.write({
      ...(base as any),
      event: 'finished',
      outcome: usage.outcome,
      ...(usage.outcome !== 'ok' && usage.errorClass ? { error_class: usage.errorClass } : {}),
      fuel,
      wasm_fuel: usage.wasmFuel,
      host_fuel: usage.hostFuel,
      memory_peak: usage.memoryPeak,
      model_tokens: 0,
      embedding_tokens: 0,
      wall_ms: usage.wallMs,
    });
    this.options.log.info('svc_server::execute', 'execution finished', {
      execution_id: base.execution_id,
      blueprint: base.blueprint,
      session: base.session_id,
      fuel,
      wasm_fuel: usage.wasmFuel,
      host_fuel: usage.hostFuel,
      memory_peak: usage.memoryPeak,
      wall_ms: usage.wallMs,
      outcome: logOutcome(usage.outcome),
    });
  }
}
