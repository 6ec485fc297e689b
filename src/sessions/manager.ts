// The session lifecycle: open, activity with a debounced
// durable idle clock, rebind, end (deleted, evicted, expired) and the idle reaper; boot
// recovery lives in recovery.ts. Holds harness secrets in memory only.
import { auditVariables, type AuditWriter, type ServerLog, type SessionAuditRecord } from '../audit';
import { bindBlueprint, bindHarnessSecrets, missingRequiredSecrets, type BindableBlueprint } from './binding';
import type { SessionFileAreas } from './file-areas';
import type { FilledVfs } from '../blueprints';
import { LastRunStore, ONE_OFF_RUNS_KEPT, type LastRun } from './last-runs';
import type { IdempotencyLedger } from './ledger';
import type { SessionRecord, SessionRecordStore } from './record-store';
import { fileAreaOf, recoverSessions, type RecoverySummary } from './recovery';

/** What the lifecycle needs from the Blueprint version in force. */
export interface SessionBlueprint extends BindableBlueprint {
  name: string;
  /** `idle_timeout` of the current version, in seconds. */
  idleTimeoutSecs: number;
}

export const DEFAULT_IDLE_TIMEOUT_SECS = 86_400;
export const REAP_INTERVAL_MS = 30_000;
export const ACTIVITY_WRITE_DEBOUNCE_MS = 30_000;

export const DEFAULT_SESSIONS_PER_TOKEN = 64;

export type SessionErrorCode = 'unknown_blueprint' | 'invalid_binding' | 'unknown_session' | 'blueprint_gone' | 'session_requires_secrets' | 'create_failed' | 'session_limit';

/** A refusal of a session operation; src/http maps `code` to a status and body. */
export class SessionError extends Error {
  constructor(
    readonly code: SessionErrorCode,
    message: string,
    readonly details: { name?: string; sessionId?: string; required?: string[]; limit?: number } = {},
  ) {
    super(message);
    this.name = 'SessionError';
  }
}

/**
 * Who asks, as the auth layer knows the token: its name (never its value) and role. A
 * session answers its owner and admin tokens; to anyone else it does not exist.
 */
export interface SessionActor {
  readonly name: string;
  readonly role: string;
}

/** Owners and admin tokens may act on a session; a record without an owner (written before owners existed) answers admin tokens only. */
function mayAct(owner: string | undefined, actor: SessionActor): boolean {
  return actor.role === 'admin' || (owner !== undefined && owner === actor.name);
}

/** An open session as `GET /v1/sessions` lists it (never its variables' values or secrets). */
export interface SessionSummary {
  session_id: string;
  blueprint: string;
  /** The name of the token that opened it. */
  owner: string | null;
  /** Opened through the MCP endpoint. */
  mcp: boolean;
  created_at_ms: number;
  last_activity_ms: number;
  idle_timeout_secs: number;
  runs_in_flight: number;
}

/** An open session as other modules see it. */
export interface SessionView {
  readonly id: string;
  readonly blueprintName: string;
  readonly principal: string;
  readonly variables: Readonly<Record<string, string>>;
  readonly fileArea: FilledVfs;
  readonly secrets: Readonly<Record<string, string>>;
}

interface OpenSession {
  record: SessionRecord;
  secrets: Record<string, string>;
  runsInFlight: number;
  lastActivityMs: number;
  lastWrittenActivityMs: number;
}

export interface SessionManagerOptions<B extends SessionBlueprint> {
  records: SessionRecordStore;
  fileAreas: SessionFileAreas;
  /** Null when there is no ledger (then nothing is guarded). */
  ledger: IdempotencyLedger | null;
  audit: AuditWriter;
  log: ServerLog;
  /** The Blueprint version in force, or null when it is not registered or not usable. */
  resolveBlueprint: (name: string) => B | null;
  newId: () => string;
  now?: () => number;
  /** Called whenever a session ends, so other capabilities (svc:session state) drop theirs. */
  onSessionEnded?: (sessionId: string) => void;
  /** Bytes one token's last-run records may hold together, for one-off runs and again for open sessions (`max_last_run_memory`). */
  lastRunBytes?: number;
  /** Sessions one token may have open at once (`max_sessions_per_token`). */
  sessionsPerToken?: number;
  /** How often the reaper sweeps for idle sessions (the `session_reap_interval` setting). */
  reapIntervalMs?: number;
  activityDebounceMs?: number;
}

type EndEvent =
  | { event: 'deleted'; reason: 'disconnect' }
  | { event: 'evicted'; reason: 'blueprint_deleted' }
  | { event: 'evicted'; reason: 'session_limit' }
  | { event: 'expired'; reason: 'idle_timeout' };

export class SessionManager<B extends SessionBlueprint = SessionBlueprint> {
  private readonly sessions = new Map<string, OpenSession>();
  /** Open sessions per owner (token name), for `max_sessions_per_token`. */
  private readonly openPerOwner = new Map<string, number>();
  private readonly oneOffRuns: LastRunStore;
  /** Open sessions' last runs, under a byte budget per token of their own: many sessions cannot grow the server without bound. */
  private readonly sessionRuns: LastRunStore;
  private readonly now: () => number;
  private reaper: NodeJS.Timeout | null = null;

  constructor(private readonly options: SessionManagerOptions<B>) {
    this.now = options.now ?? Date.now;
    this.oneOffRuns = new LastRunStore(options.lastRunBytes, ONE_OFF_RUNS_KEPT);
    this.sessionRuns = new LastRunStore(options.lastRunBytes);
  }

  // ---- opening and binding -------------------------------------------------------------

  /** `POST /v1/sessions`: the Blueprint, then the binding (variables, vfs, git, secrets), then the session, owned by `principal` (the token's name). */
  create(request: { blueprint: string; variables?: Record<string, string>; secrets?: Record<string, string>; principal: string; mcp?: unknown }): { sessionId: string; fileArea: FilledVfs } {
    const blueprint = this.options.resolveBlueprint(request.blueprint);
    if (!blueprint) {
      throw new SessionError('unknown_blueprint', `blueprint '${request.blueprint}' is not registered on this server`, { name: request.blueprint });
    }
    const binding = bindBlueprint(blueprint, request.variables, request.secrets);
    if (!binding.ok) throw new SessionError('invalid_binding', binding.error);
    this.refusePastSessionLimit(request.principal);

    const sessionId = this.options.newId();
    const now = this.now();
    const record: SessionRecord = {
      version: 1,
      session_id: sessionId,
      blueprint: blueprint.name,
      principal: request.principal,
      owner: request.principal,
      variables: binding.value.variables,
      file_area: binding.value.fileArea,
      created_at_ms: now,
      last_activity_ms: now,
      idle_timeout_secs: blueprint.idleTimeoutSecs,
      mcp: request.mcp ?? null,
    };
    this.persistNewSession(record);
    this.admit({ record, secrets: binding.value.secrets, runsInFlight: 0, lastActivityMs: now, lastWrittenActivityMs: now });
    this.auditSession({
      type: 'session',
      event: 'created',
      session_id: sessionId,
      principal: request.principal,
      blueprint: blueprint.name,
      vars: auditVariables(record.variables),
      file_area_mode: binding.value.fileArea.mode,
    });
    return { sessionId, fileArea: binding.value.fileArea };
  }

  /**
   * Every token, admin ones too, is held to the limit: it counts the sessions a token opened
   * (a leaking harness holding an admin token grows the server just the same), not the
   * sessions an admin token may act on. Idle sessions first expire, so they do not count.
   */
  /** Sessions one token may have open at once (`max_sessions_per_token`). */
  get sessionLimit(): number {
    return this.options.sessionsPerToken ?? DEFAULT_SESSIONS_PER_TOKEN;
  }

  private refusePastSessionLimit(owner: string): void {
    const limit = this.sessionLimit;
    if ((this.openPerOwner.get(owner) ?? 0) < limit) return;
    this.reap();
    if ((this.openPerOwner.get(owner) ?? 0) < limit) return;
    if (this.reclaimIdleMcpSession(owner)) return;
    const open = this.openPerOwner.get(owner) ?? 0;
    throw new SessionError(
      'session_limit',
      `this token already has ${open} open sessions, the most max_sessions_per_token (${limit}) allows, and none of them is an MCP session with nothing in flight to reclaim; end one (DELETE /v1/sessions/{id}, or DELETE on the MCP endpoint; GET /v1/sessions lists them) or ask the operator to raise max_sessions_per_token`,
      { limit },
    );
  }

  /**
   * MCP clients often open a session per call and never end it (the MCP Inspector CLI does):
   * a token at its limit gets back its own longest-idle MCP session with no run in flight.
   * REST sessions are never reclaimed: their harness ends them explicitly.
   */
  private reclaimIdleMcpSession(owner: string): boolean {
    let oldest: OpenSession | null = null;
    for (const session of this.sessions.values()) {
      if (session.record.owner !== owner || !session.record.mcp || session.runsInFlight > 0) continue;
      if (!oldest || session.lastActivityMs < oldest.lastActivityMs) oldest = session;
    }
    if (!oldest) return false;
    this.end(oldest, { event: 'evicted', reason: 'session_limit' }, oldest.record.principal);
    return true;
  }

  private admit(session: OpenSession): void {
    this.sessions.set(session.record.session_id, session);
    const owner = session.record.owner;
    if (owner !== undefined) this.openPerOwner.set(owner, (this.openPerOwner.get(owner) ?? 0) + 1);
  }

  private persistNewSession(record: SessionRecord): void {
    const perSession = fileAreaOf(record).mode === 'per_session';
    try {
      if (perSession) this.options.fileAreas.prepare(record.session_id);
      this.options.records.write(record);
    } catch (error) {
      this.options.log.error('svc_server::sessions', 'could not create a session', { session: record.session_id, error: (error as Error).message });
      if (perSession) this.removeFilesQuietly(record.session_id);
      throw new SessionError('create_failed', 'the session could not be created: its record or file area could not be written; see the server log');
    }
  }

  /** `POST /v1/sessions/{id}/rebind`: a full replacement of the harness secrets. */
  rebind(sessionId: string, secrets: Record<string, string>, actor: SessionActor): void {
    const session = this.openSession(sessionId, actor);
    const blueprint = this.currentBlueprint(session);
    this.touchSession(session);
    const bound = bindHarnessSecrets(blueprint.declarations, secrets);
    if (!bound.ok) throw new SessionError('invalid_binding', bound.error, { sessionId });
    session.secrets = bound.value;
    const vars = auditVariables(session.record.variables);
    this.auditSession({ type: 'session', event: 'rebound', session_id: sessionId, principal: actor.name, vars, old_vars: vars });
  }

  // ---- runs ------------------------------------------------------------------------------

  /**
   * The session-level checks of a session execute, in order: unknown session, Blueprint no
   * longer exists, required harness secrets missing. Counts as activity.
   */
  prepareRun(sessionId: string, actor: SessionActor): { session: SessionView; blueprint: B } {
    const session = this.openSession(sessionId, actor);
    this.touchSession(session);
    const blueprint = this.currentBlueprint(session);
    const missing = missingRequiredSecrets(blueprint.declarations, session.secrets);
    if (missing.length > 0) {
      throw new SessionError('session_requires_secrets', `the blueprint requires harness secrets this server no longer holds: ${missing.join(', ')}; send them to rebind`, {
        sessionId,
        required: missing,
      });
    }
    return { session: viewOf(session), blueprint };
  }

  /** Marks a run in flight (the reaper leaves the session alone) and returns its end marker. */
  runStarted(sessionId: string): () => void {
    const session = this.sessions.get(sessionId);
    if (!session) return () => {};
    session.runsInFlight += 1;
    this.touchSession(session);
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      session.runsInFlight -= 1;
      if (this.sessions.get(sessionId) === session) this.touchSession(session);
    };
  }

  /** The run's last-run record (its result capped as for one-off runs; past the owner's byte budget the oldest of its sessions' records go first). */
  recordLastRun(sessionId: string, lastRun: LastRun): void {
    const session = this.sessions.get(sessionId);
    if (session) this.sessionRuns.remember(sessionId, lastRun, session.record.owner ?? '');
  }

  /** The last-run record of a one-off run's throw-away session, readable by `owner` (its newest ONE_OFF_RUNS_KEPT within its byte budget are kept). */
  rememberOneOffRun(sessionId: string, lastRun: LastRun, owner: string): void {
    this.oneOffRuns.remember(sessionId, lastRun, owner);
  }

  /** Last run of an open session or a recent one-off run the actor may read; null when none. Counts as activity. */
  lastRun(sessionId: string, actor: SessionActor): LastRun | null {
    const session = this.liveSession(sessionId);
    if (session) {
      if (!mayAct(session.record.owner, actor)) return null;
      this.touchSession(session);
      return this.sessionRuns.get(sessionId)?.record ?? null;
    }
    const oneOff = this.oneOffRuns.get(sessionId);
    return oneOff && mayAct(oneOff.owner, actor) ? oneOff.record : null;
  }

  /** Any request on the session: keeps it from idling out. */
  touch(sessionId: string): void {
    const session = this.sessions.get(sessionId);
    if (session) this.touchSession(session);
  }

  /** The open session as the actor may see it; null when unknown or not theirs. */
  get(sessionId: string, actor: SessionActor): SessionView | null {
    const session = this.liveSession(sessionId);
    return session && mayAct(session.record.owner, actor) ? viewOf(session) : null;
  }

  activeCount(): number {
    return this.sessions.size;
  }

  /** `GET /v1/sessions`: the open sessions the actor may act on (its own; an admin token's: all), oldest first. */
  list(actor: SessionActor): SessionSummary[] {
    this.reap();
    const out: SessionSummary[] = [];
    for (const session of this.sessions.values()) {
      if (!mayAct(session.record.owner, actor)) continue;
      const { record } = session;
      out.push({
        session_id: record.session_id,
        blueprint: record.blueprint,
        owner: record.owner ?? null,
        mcp: Boolean(record.mcp),
        created_at_ms: record.created_at_ms,
        last_activity_ms: session.lastActivityMs,
        idle_timeout_secs: this.options.resolveBlueprint(record.blueprint)?.idleTimeoutSecs ?? record.idle_timeout_secs ?? DEFAULT_IDLE_TIMEOUT_SECS,
        runs_in_flight: session.runsInFlight,
      });
    }
    return out.sort((a, b) => a.created_at_ms - b.created_at_ms);
  }

  /** The token (name) that opened an open session; undefined when unknown or recorded without one. */
  ownerOf(sessionId: string): string | undefined {
    return this.sessions.get(sessionId)?.record.owner;
  }

  /** Open sessions whose files live in a per_session area, each with the token it counts against (the disk budget). */
  perSessionAreas(): Array<{ sessionId: string; owner: string }> {
    const areas: Array<{ sessionId: string; owner: string }> = [];
    for (const [sessionId, session] of this.sessions) {
      if (fileAreaOf(session.record).mode === 'per_session') areas.push({ sessionId, owner: session.record.owner ?? session.record.principal });
    }
    return areas;
  }

  /** Open sessions per owner (token name), for the per-token metrics. */
  openByOwner(): ReadonlyMap<string, number> {
    return this.openPerOwner;
  }

  // ---- ending --------------------------------------------------------------------------

  /** `DELETE /v1/sessions/{id}`; false when the session is unknown. */
  delete(sessionId: string, actor: SessionActor): boolean {
    const session = this.liveSession(sessionId);
    if (!session || !mayAct(session.record.owner, actor)) return false;
    this.end(session, { event: 'deleted', reason: 'disconnect' }, actor.name);
    return true;
  }

  /** The Blueprint-deletion hook: ends every session of that Blueprint. */
  evictBlueprint(name: string, principal?: string): number {
    const doomed = [...this.sessions.values()].filter((session) => session.record.blueprint === name);
    for (const session of doomed) this.end(session, { event: 'evicted', reason: 'blueprint_deleted' }, principal ?? session.record.principal);
    return doomed.length;
  }

  /** Ends sessions idle past their Blueprint's current `idle_timeout`; returns how many. */
  reap(): number {
    let expired = 0;
    for (const session of [...this.sessions.values()]) {
      if (this.expireIfIdle(session)) expired += 1;
    }
    return expired;
  }

  private end(session: OpenSession, how: EndEvent, principal: string): void {
    const sessionId = session.record.session_id;
    this.sessions.delete(sessionId);
    const owner = session.record.owner;
    if (owner !== undefined) {
      const open = (this.openPerOwner.get(owner) ?? 1) - 1;
      if (open > 0) this.openPerOwner.set(owner, open);
      else this.openPerOwner.delete(owner);
    }
    this.sessionRuns.forget(sessionId);
    this.discardSessionData(session.record);
    this.auditSession({
      type: 'session',
      event: how.event,
      session_id: sessionId,
      principal,
      reason: how.reason,
      ...(how.event === 'evicted' && how.reason === 'blueprint_deleted' ? { blueprint: session.record.blueprint } : {}),
    });
  }

  /** Record, per-session files, ledger rows and other capabilities' state. */
  private discardSessionData(record: SessionRecord): void {
    const sessionId = record.session_id;
    try {
      this.options.records.remove(sessionId);
    } catch (error) {
      this.options.log.error('svc_server::sessions', 'could not delete a session record', { session: sessionId, error: (error as Error).message });
    }
    if (fileAreaOf(record).mode === 'per_session') this.removeFilesQuietly(sessionId);
    this.options.ledger?.deleteSession(sessionId);
    try {
      this.options.onSessionEnded?.(sessionId);
    } catch (error) {
      this.options.log.error('svc_server::sessions', 'a session-end hook failed', { session: sessionId, error: (error as Error).message });
    }
  }

  private removeFilesQuietly(sessionId: string): void {
    const failed = (error: unknown) => this.options.log.error('svc_server::sessions', 'could not delete per-session files', { session: sessionId, error: (error as Error)?.message ?? String(error) });
    try {
      this.options.fileAreas.remove(sessionId).catch(failed);
    } catch (error) {
      failed(error);
    }
  }

  // ---- boot and the reaper -------------------------------------------------------------

  /** Boot recovery: reload, evict, expire or drop each record; sweep orphans; fix the ledger. */
  recover(): RecoverySummary {
    // Directories an earlier server was still removing go in the background.
    this.options.fileAreas.sweepRemovals().catch((error: unknown) => this.options.log.error('svc_server::sessions', 'could not finish removing deleted sessions\' files', { error: (error as Error)?.message ?? String(error) }));
    return recoverSessions({
      records: this.options.records,
      fileAreas: this.options.fileAreas,
      ledger: this.options.ledger,
      log: this.options.log,
      now: this.now,
      idleTimeoutOf: (name) => this.options.resolveBlueprint(name)?.idleTimeoutSecs ?? null,
      reopen: (record) =>
        this.admit({
          record,
          secrets: {},
          runsInFlight: 0,
          lastActivityMs: record.last_activity_ms,
          lastWrittenActivityMs: record.last_activity_ms,
        }),
      openIds: () => this.sessions.keys(),
      discard: (record) => this.discardSessionData(record),
      removeFiles: (sessionId) => this.removeFilesQuietly(sessionId),
      audit: (record) => this.auditSession(record),
    });
  }

  /** Starts the idle reaper (every `reapIntervalMs`, default 30 seconds). */
  start(): void {
    if (this.reaper) return;
    this.reaper = setInterval(() => this.reap(), this.options.reapIntervalMs ?? REAP_INTERVAL_MS);
    this.reaper.unref();
  }

  /** Stops the reaper and writes pending activity so the idle clock survives the restart. */
  close(): void {
    if (this.reaper) clearInterval(this.reaper);
    this.reaper = null;
    for (const session of this.sessions.values()) {
      if (session.lastActivityMs !== session.lastWrittenActivityMs) this.writeActivity(session);
    }
  }

  // ---- internals -----------------------------------------------------------------------

  /** The open session the actor may use, or SessionError `unknown_session` (the same for someone else's). */
  private openSession(sessionId: string, actor: SessionActor): OpenSession {
    const session = this.liveSession(sessionId);
    if (!session || !mayAct(session.record.owner, actor)) throw new SessionError('unknown_session', `session '${sessionId}' is not open on this server`, { sessionId });
    return session;
  }

  /** Looks a session up; one found idle past its timeout is expired now rather than used. */
  private liveSession(sessionId: string): OpenSession | null {
    const session = this.sessions.get(sessionId);
    if (!session) return null;
    return this.expireIfIdle(session) ? null : session;
  }

  private currentBlueprint(session: OpenSession): B {
    const name = session.record.blueprint;
    const blueprint = this.options.resolveBlueprint(name);
    if (!blueprint) {
      throw new SessionError('blueprint_gone', `blueprint '${name}' of this session is no longer registered; open a new session`, { name, sessionId: session.record.session_id });
    }
    return blueprint;
  }

  private expireIfIdle(session: OpenSession): boolean {
    if (session.runsInFlight > 0) return false;
    const timeoutSecs = this.options.resolveBlueprint(session.record.blueprint)?.idleTimeoutSecs ?? session.record.idle_timeout_secs ?? DEFAULT_IDLE_TIMEOUT_SECS;
    if (this.now() - session.lastActivityMs <= timeoutSecs * 1000) return false;
    this.end(session, { event: 'expired', reason: 'idle_timeout' }, session.record.principal);
    return true;
  }

  private touchSession(session: OpenSession): void {
    session.lastActivityMs = this.now();
    const debounce = this.options.activityDebounceMs ?? ACTIVITY_WRITE_DEBOUNCE_MS;
    if (session.lastActivityMs - session.lastWrittenActivityMs >= debounce) this.writeActivity(session);
  }

  private writeActivity(session: OpenSession): void {
    const current = this.options.resolveBlueprint(session.record.blueprint);
    session.record = {
      ...session.record,
      last_activity_ms: session.lastActivityMs,
      idle_timeout_secs: current?.idleTimeoutSecs ?? session.record.idle_timeout_secs,
    };
    try {
      this.options.records.write(session.record);
      session.lastWrittenActivityMs = session.lastActivityMs;
    } catch (error) {
      this.options.log.error('svc_server::sessions', 'could not write session activity', { session: session.record.session_id, error: (error as Error).message });
    }
  }

  private auditSession(record: SessionAuditRecord): void {
    this.options.audit.write(record);
  }
}

function viewOf(session: OpenSession): SessionView {
  return {
    id: session.record.session_id,
    blueprintName: session.record.blueprint,
    principal: session.record.principal,
    variables: session.record.variables,
    fileArea: fileAreaOf(session.record),
    secrets: session.secrets,
  };
}
