// Prometheus instruments of the server (prom-client), served at GET /metrics. Call sites
// in other modules add one line each (`metrics.x.inc(...)`); most run facts arrive through
// observeAuditRecord, so the audit trail and the metrics count the same events. Gauges
// of live state read their value at scrape time through bindServerState.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics, exponentialBuckets } from 'prom-client';
import type { ThreadHeap } from '../../sandbox/thread-heap';
import type { AuditRecord, AuditWriter } from '../audit';

export const registry = new Registry();
// The event-loop delay is sampled every 100 ms, not prom-client's 10 ms: 100 wake-ups a
// second were most of an idle server's CPU (idle server and runner 9 -> 2.5 ms/s, measured),
// and a blocked loop still shows in the lag figures.
collectDefaultMetrics({ register: registry, prefix: 'svc_', eventLoopMonitoringPrecision: 100 });

/** What the live-state gauges read at scrape time (set once at boot). */
export interface ServerState {
  poolSize: () => number;
  queueDepth: () => number;
  /** Runs holding a CPU slot, and runs waiting for one (max_computing_runs). */
  cpuSlots: () => { computing: number; waiting: number };
  /** Runs waiting for approval with no isolate (parked, resumed from their journal when answered). */
  parkedRuns?: () => number;
  openSessions: () => number;
  /** MCP sessions whose protocol state (transport and server objects) is held in memory. */
  mcpTransports?: () => number;
  /** Type checks running now on the checker threads. */
  typechecksRunning?: () => number;
  typecheckersWarmed?: () => number;
  /** Checks that waited for a cold checker (a thread started, or a declaration set's checker made, by them). */
  typecheckCold?: () => number;
  /** Checker threads replaced because their heap neared typecheck_thread_memory. */
  typecheckThreadsReplaced?: () => number;
  /** The checker threads' V8 heaps in bytes (in use, reserved), as each last reported. */
  typecheckHeap?: () => { used: number; total: number };
  /** The V8 heap of every thread (main and workers) as each last reported. */
  threadHeaps?: () => ThreadHeap[];
  /** Programs' HTTP requests the network thread has in flight. */
  networkThreadRequests?: () => number;
  lookups: () => Record<string, number>;
  /** Server-wide token pools (svc:llm and svc:embedding budgets). */
  tokens: () => Record<'model_tokens' | 'embedding_tokens', { spent: number; reserved: number; budget: number }>;
  /** Open client connections by state. */
  connections?: () => { authenticated: number; unauthenticated: number };
  /** Use of each per-token quota by each token using it. */
  quotaUse?: () => QuotaUse[];
}

/** How much of one per-token quota one token uses now (`quota`: the setting's name). */
export interface QuotaUse {
  /** The token's name, never its value. */
  token: string;
  quota: string;
  use: number;
}

let state: ServerState | null = null;

export function bindServerState(next: ServerState): void {
  state = next;
}

const registers = [registry];

/**
 * A gauge of labelled rows read from the server state at scrape time: rows that no longer
 * exist are dropped, and rows with the same labels add up (threads of one kind).
 */
function rowsGauge<L extends string>(name: string, help: string, labelNames: readonly L[], rows: (live: ServerState) => Array<[Partial<Record<L, string>>, number]> | undefined): Gauge<L> {
  return new Gauge({
    name,
    help,
    labelNames,
    registers,
    collect() {
      const read = state ? rows(state) : undefined;
      if (!read) return;
      this.reset();
      for (const [labels, value] of read) this.inc(labels, value);
    },
  });
}

/** A gauge whose value is read from the server state at scrape time (none while the state lacks it). */
function liveGauge(name: string, help: string, read: (live: ServerState) => number | undefined): Gauge {
  return new Gauge({
    name,
    help,
    registers,
    collect() {
      const value = state === null ? undefined : read(state);
      if (value !== undefined) this.set(value);
    },
  });
}

/** A gauge labelled `state` whose values are the named fields of one reading of the server state. */
function liveStateGauge<K extends string>(name: string, help: string, states: readonly K[], read: (live: ServerState) => Record<K, number> | undefined): Gauge<'state'> {
  return new Gauge({
    name,
    help,
    labelNames: ['state'] as const,
    registers,
    collect() {
      const reading = state === null ? undefined : read(state);
      if (reading) for (const key of states) this.set({ state: key }, reading[key]);
    },
  });
}

export const metrics = {
  runs: new Counter({ name: 'svc_runs_total', help: 'Program runs by entry point and outcome (ok or the error kind)', labelNames: ['entry_point', 'outcome'] as const, registers }),
  runDuration: new Histogram({
    name: 'svc_run_duration_seconds',
    help: 'Wall time of program runs',
    labelNames: ['entry_point'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300],
    registers,
  }),
  runFuel: new Histogram({ name: 'svc_run_fuel', help: 'Fuel spent by program runs', labelNames: ['entry_point'] as const, buckets: exponentialBuckets(1_000, 10, 10), registers }),
  compileCacheBytes: new Gauge({ name: 'svc_compile_cache_bytes', help: 'Estimated bytes of compiled programs the server keeps (compile_cache_size bounds them)', registers }),
  compileCacheEntries: new Gauge({ name: 'svc_compile_cache_entries', help: 'Compiled programs the server keeps', registers }),
  compileThreadRecycles: new Counter({ name: 'svc_compile_thread_recycles_total', help: 'Times the compile threads were replaced by fresh ones after compile_thread_recycle compiles (a thread\'s exit returns all its memory)', registers }),
  compileDuration: new Histogram({ name: 'svc_compile_duration_seconds', help: 'Time to compile and instrument a program (cache misses)', buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5], registers }),
  runnerRestarts: new Counter({ name: 'svc_runner_restarts_total', help: 'Runner processes replaced, by the outcome that ended their run', labelNames: ['reason'] as const, registers }),
  runnerPoolSize: liveGauge('svc_runner_pool_size', 'Runner processes in the pool', (live) => live.poolSize()),
  runnerQueueDepth: liveGauge('svc_runner_queue_depth', 'Runs waiting for admission (max_runs_in_flight, max_runs_memory)', (live) => live.queueDepth()),
  runsComputing: liveGauge('svc_runs_computing', 'Runs executing code now, each holding a CPU slot (max_computing_runs); runs waiting on the host or a timer hold none', (live) => live.cpuSlots().computing),
  runsWaitingForCpu: liveGauge('svc_runs_waiting_for_cpu', 'Runs with code to execute waiting for a CPU slot (max_computing_runs, shared fairly across tokens)', (live) => live.cpuSlots().waiting),
  runsParked: liveGauge('svc_runs_parked', 'Runs waiting only for approvals whose isolate has ended (they hold no runner slot and resume from their journal when answered)', (live) => live.parkedRuns?.()),
  openSessions: liveGauge('svc_open_sessions', 'Open sessions (REST and MCP; throw-away sessions of one-off runs not counted)', (live) => live.openSessions()),
  mcpTransports: liveGauge('svc_mcp_transports', 'MCP sessions whose protocol state the server holds in memory (at most the open MCP sessions)', (live) => live.mcpTransports?.()),
  runnerSandboxLevel: new Gauge({ name: 'svc_runner_sandbox_level', help: 'How runner processes are confined: 1 for the level in force (full, partial, env-only), 0 for the others', labelNames: ['level'] as const, registers }),
  runnerSandboxFeature: new Gauge({ name: 'svc_runner_sandbox_feature', help: 'Runner confinement features: 1 in force, 0 missing (README "How a run is contained")', labelNames: ['feature'] as const, registers }),
  typechecksRunning: liveGauge('svc_typechecks_running', 'Program type checks running now on the checker threads (each tenant has at most one)', (live) => live.typechecksRunning?.()),
  typecheckersWarmed: liveGauge('svc_typecheckers_warmed', 'Type checkers (declaration set and mode) made ahead of any program, at start and when a Blueprint is applied (typecheck_warm_after)', (live) => live.typecheckersWarmed?.()),
  typecheckCold: liveGauge('svc_typecheck_cold_checks', 'Type checks that waited for a cold checker: a checker thread they started (TypeScript loaded first) or their declaration set\'s checker made by them; warming at start and when a Blueprint is applied makes both ahead', (live) => live.typecheckCold?.()),
  typecheckThreadsReplaced: liveGauge('svc_typecheck_threads_replaced', 'Type-checker threads replaced because their heap after a full collection passed three quarters of typecheck_thread_memory (each replacement is warmed before it takes over)', (live) => live.typecheckThreadsReplaced?.()),
  typecheckHeap: liveStateGauge('svc_typecheck_heap_bytes', 'V8 heap of the type-checker threads together, in use and reserved (state), as each thread last reported (after a warm-up, its first check, a full collection or 64 batches of checks); each is bounded by typecheck_thread_memory', ['used', 'total'], (live) => live.typecheckHeap?.()),
  threadHeap: rowsGauge('svc_thread_heap_bytes', 'V8 heap of the server\'s threads by what they are for (thread: main, checker, compile, host, packages, network; several threads of one kind add up) and state: used (live and not yet collected), total (reserved, what shows in the RSS), limit (each thread\'s heap limit, added up)', ['thread', 'state'], (live) =>
    live.threadHeaps?.().flatMap(({ thread, used, total, limit }) => [[{ thread, state: 'used' }, used], [{ thread, state: 'total' }, total], [{ thread, state: 'limit' }, limit]] satisfies Array<[Record<'thread' | 'state', string>, number]>),
  ),
  threads: rowsGauge('svc_threads', 'Threads of the server by what they are for (main, checker, compile, host, packages, network), those that reported their heap lately', ['thread'], (live) => live.threadHeaps?.().map(({ thread }) => [{ thread }, 1])),
  sessionsOpened: new Counter({ name: 'svc_sessions_opened_total', help: 'Sessions opened', registers }),
  idempotencyReplays: new Counter({ name: 'svc_idempotency_replays_total', help: 'Session executes answered from the idempotency record without running', registers }),
  decisions: new Counter({ name: 'svc_decisions_total', help: 'Gated operations by decision source and decision (every decision, whatever logging.audit.allows writes)', labelNames: ['source', 'decision'] as const, registers }),
  networkThreadRequests: liveGauge('svc_network_thread_requests', 'Programs\' outbound HTTP requests (fetch, svc:http) in flight in the network thread, from sending to the end of their body', (live) => live.networkThreadRequests?.()),
  networkThreadsReplaced: new Counter({ name: 'svc_network_threads_replaced_total', help: 'Network threads (programs\' outbound HTTP) that stopped and were replaced, by reason (out of memory past network_thread_memory, or failed); their requests in flight failed', labelNames: ['reason'] as const, registers }),
  outboundCalls: new Counter({ name: 'svc_outbound_connections_total', help: 'Outbound connections programs caused, by outcome of the address check', labelNames: ['outcome'] as const, registers }),
  modelTokens: new Counter({ name: 'svc_model_tokens_total', help: 'Model tokens spent by runs', registers }),
  embeddingTokens: new Counter({ name: 'svc_embedding_tokens_total', help: 'Embedding tokens spent by runs', registers }),
  tokenBudgets: new Gauge({
    name: 'svc_token_budget',
    help: 'Server-wide token pools by kind (model, embedding) and state: budget (max_llm_tokens, max_embedding_tokens), spent, reserved',
    labelNames: ['kind', 'state'] as const,
    registers,
    collect() {
      if (!state) return;
      const pools = state.tokens();
      for (const [kind, pool] of [['model', pools.model_tokens], ['embedding', pools.embedding_tokens]] as const) {
        this.set({ kind, state: 'budget' }, pool.budget);
        this.set({ kind, state: 'spent' }, pool.spent);
        this.set({ kind, state: 'reserved' }, pool.reserved);
      }
    },
  }),
  tokenQuotaUse: rowsGauge('svc_token_quota_use', 'What each token uses of each per-token quota, labelled by the token\'s name and the quota\'s setting (runs in flight and queued, open sessions, host calls in flight, svc:session state bytes, idempotency records and bytes, model tokens)', ['token', 'quota'], (live) =>
    live.quotaUse?.().map(({ token, quota, use }) => [{ token, quota }, use]),
  ),
  tokenQuotaRefusals: new Counter({ name: 'svc_token_quota_refusals_total', help: 'Requests and calls refused by a per-token or server-wide quota, by the token\'s name and the quota (its setting; for a program\'s host call refused by a budget, the call\'s capability such as session.write or llm.call)', labelNames: ['token', 'quota'] as const, registers }),
  authRefusals: new Counter({ name: 'svc_auth_refusals_total', help: 'Requests refused for their token, by reason (every one, also those the audit counts into one record)', labelNames: ['reason'] as const, registers }),
  connections: liveStateGauge('svc_http_connections', 'Open client connections, by whether one of their requests has authenticated yet (max_connections, max_unauthenticated_connections)', ['authenticated', 'unauthenticated'], (live) => live.connections?.()),
  connectionsRefused: new Counter({ name: 'svc_http_connections_closed_total', help: 'Client connections closed by a connection bound: reason max_connections, max_connections_per_address (the new one refused, or an unauthenticated one closed for it) or max_unauthenticated_connections (the oldest unauthenticated one closed)', labelNames: ['reason'] as const, registers }),
  auditWriteFailures: new Counter({ name: 'svc_audit_write_failures_total', help: 'Audit records that could not be written', registers }),
  blueprintChanges: new Counter({ name: 'svc_blueprint_changes_total', help: 'Successful Blueprint registrations, replacements and deletions', labelNames: ['event'] as const, registers }),
  lookups: new Counter({
    name: 'svc_discovery_lookups_total',
    help: 'Package search, Package docs and built-in lookups',
    labelNames: ['kind'] as const,
    registers,
    collect() {
      if (!state) return;
      this.reset();
      for (const [kind, count] of Object.entries(state.lookups())) this.inc({ kind }, count);
    },
  }),
  httpRequests: new Counter({ name: 'svc_http_requests_total', help: 'HTTP requests by method, route pattern and status', labelNames: ['method', 'route', 'status'] as const, registers }),
  httpDuration: new Histogram({ name: 'svc_http_request_duration_seconds', help: 'HTTP handling time by route pattern', labelNames: ['route'] as const, buckets: [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 30], registers }),
};

/** Counts what an audit record says happened (every record passes here, audit on or off). */
export function observeAuditRecord(record: AuditRecord): void {
  switch (record.type) {
    case 'execution': {
      if (record.event !== 'finished') return;
      const entryPoint = record.entry_point;
      metrics.runs.inc({ entry_point: entryPoint, outcome: record.outcome === 'ok' ? 'ok' : (record.error_class ?? record.outcome ?? 'error') });
      if (record.wall_ms !== undefined) metrics.runDuration.observe({ entry_point: entryPoint }, record.wall_ms / 1000);
      if (record.fuel !== undefined) metrics.runFuel.observe({ entry_point: entryPoint }, record.fuel);
      if (record.model_tokens) metrics.modelTokens.inc(record.model_tokens);
      if (record.embedding_tokens) metrics.embeddingTokens.inc(record.embedding_tokens);
      return;
    }
    case 'session':
      if (record.event === 'created') metrics.sessionsOpened.inc();
      return;
    case 'decision':
      // A program's host call refused by a budget (svc:session state, model tokens): labelled by its capability.
      if (record.decision === 'deny' && record.source === 'quota') metrics.tokenQuotaRefusals.inc({ token: record.principal, quota: record.capability }, record.count ?? 1);
      return;
    case 'admin':
      if (record.outcome === 'ok' && record.event.startsWith('blueprint_')) metrics.blueprintChanges.inc({ event: record.event });
      return;
    default:
      return;
  }
}

/** The audit writer with every record observed first (the one hook of the audit trail). */
export function observedAuditWriter(writer: AuditWriter): AuditWriter {
  return {
    write(record) {
      try {
        observeAuditRecord(record);
      } catch {
        // Metrics never stand in the way of an audit record.
      }
      writer.write(record);
    },
  };
}

/** Awaits `work`, observing how long it took. */
export async function timed<T>(histogram: Histogram, work: Promise<T>): Promise<T> {
  const end = histogram.startTimer();
  try {
    return await work;
  } finally {
    end();
  }
}

/** The current total of a counter, summed over every label but `by` (one entry per value of `by`, or `total`). */
export async function counterTotals(name: string, by?: string): Promise<Record<string, number>> {
  const metric = registry.getSingleMetric(name);
  if (!metric) return {};
  const data = await metric.get();
  const out: Record<string, number> = {};
  for (const sample of data.values) {
    const key = by ? String(sample.labels[by] ?? '') : 'total';
    out[key] = (out[key] ?? 0) + sample.value;
  }
  return out;
}
