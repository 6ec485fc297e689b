// Per-session key/value state for `svc:session`: JSON text per key,
// per-session caps, a budget per token (`max_session_state_memory_per_token`, the
// sessions' owners) and one server-wide budget (`max_session_state_memory`) reserved
// atomically, so a `set` that would pass one is refused and never evicts another session.
// One token cannot take the whole server-wide budget from the others: a token holding
// less than its fair share of it (the budget divided among the tokens holding state)
// stores up to that share even when the budget is full, so the server holds at most
// twice the budget.
import { createHmac, randomBytes } from 'node:crypto';

export const MAX_KEY_UNITS = 256;
export const MAX_VALUE_BYTES = 1024 * 1024;
export const MAX_ENTRIES = 1024;
export const MAX_SESSION_BYTES = 16 * 1024 * 1024;
const ENTRY_OVERHEAD = 64;

export class StateBudget {
  private used = 0;
  private readonly byToken = new Map<string, number>();
  constructor(
    readonly limitBytes: number,
    readonly perTokenBytes: number = limitBytes,
  ) {}

  /**
   * Takes `bytes` (may be negative) for `token` when its own total stays within its budget
   * and the server's within the server-wide one (or the token's within its fair share of it);
   * otherwise a refusal naming the budget, its setting and the use, and nothing changes.
   */
  reserve(token: string, bytes: number, what: string): StateRefusal | null {
    const mine = this.byToken.get(token) ?? 0;
    if (bytes > 0) {
      const holders = this.byToken.size + (this.byToken.has(token) ? 0 : 1);
      const share = Math.floor(this.limitBytes / holders);
      if (this.used + bytes > this.limitBytes && mine + bytes > share) {
        return {
          kind: 'server_budget',
          message: `${what}: the server's session-state budget (max_session_state_memory, ${this.limitBytes} bytes across all sessions) would be exceeded: sessions hold ${this.used} bytes, ${mine} of them this token's, past its fair share of ${share}; nothing was stored`,
        };
      }
      // After the server's: with the per-token budget at its default (the server's), a lone token's refusal names the server-wide one.
      if (mine + bytes > this.perTokenBytes) {
        return { kind: 'token_budget', message: `${what}: this token's svc:session state would pass max_session_state_memory_per_token (${this.perTokenBytes} bytes across its sessions); it holds ${mine} bytes; nothing was stored` };
      }
    }
    this.used = Math.max(0, this.used + bytes);
    const left = mine + bytes;
    if (left > 0) this.byToken.set(token, left);
    else this.byToken.delete(token);
    return null;
  }

  get inUse(): number {
    return this.used;
  }

  /** Bytes of state per token holding any (token names). */
  perToken(): ReadonlyMap<string, number> {
    return this.byToken;
  }
}

export type StateRefusal = { kind: 'session_limit' | 'token_budget' | 'server_budget'; message: string };

const entrySize = (key: string, json: string) => 2 * (key.length + json.length);

export class SessionState {
  private readonly entries = new Map<string, string>();
  private total = 0;

  constructor(
    private readonly budget: StateBudget,
    /** The token whose budget the state counts against (the session's owner). */
    readonly token: string,
  ) {}

  get(key: string): string | undefined {
    return this.entries.get(key);
  }

  has(key: string): boolean {
    return this.entries.has(key);
  }

  /** Stores JSON text; returns a refusal instead when a limit would be passed (nothing changes). */
  set(key: string, json: string): StateRefusal | null {
    const previous = this.entries.get(key);
    const before = previous === undefined ? 0 : entrySize(key, previous) + ENTRY_OVERHEAD;
    const after = entrySize(key, json) + ENTRY_OVERHEAD;
    if (previous === undefined && this.entries.size >= MAX_ENTRIES) return { kind: 'session_limit', message: `session.set ${key}: this session already holds ${MAX_ENTRIES} keys, the most one session may keep` };
    if (this.total - before + after > MAX_SESSION_BYTES) return { kind: 'session_limit', message: `session.set ${key}: this session's state would pass ${MAX_SESSION_BYTES} bytes` };
    const refusal = this.budget.reserve(this.token, after - before, `session.set ${key}`);
    if (refusal) return refusal;
    this.entries.set(key, json);
    this.total += after - before;
    return null;
  }

  remove(key: string): boolean {
    const previous = this.entries.get(key);
    if (previous === undefined) return false;
    const size = entrySize(key, previous) + ENTRY_OVERHEAD;
    this.entries.delete(key);
    this.total -= size;
    this.budget.reserve(this.token, -size, `session.remove ${key}`);
    return true;
  }

  /** Keys with `prefix` in UTF-16 code-unit order, after `after`. */
  keys(prefix: string, after: string | undefined): string[] {
    return [...this.entries.keys()].filter((k) => k.startsWith(prefix) && (after === undefined || k > after)).sort();
  }

  sizeOf(key: string): number {
    const json = this.entries.get(key);
    return json === undefined ? 0 : entrySize(key, json);
  }

  clear(): void {
    for (const key of [...this.entries.keys()]) this.remove(key);
  }
}

/** All live sessions' state, with the shared budget and sealed list cursors. */
export class SessionStates {
  private readonly states = new Map<string, SessionState>();
  private readonly budget: StateBudget;
  private readonly cursorKey = randomBytes(32);

  constructor(maxMegabytes: number, perTokenMegabytes: number = maxMegabytes) {
    this.budget = new StateBudget(maxMegabytes * 1024 * 1024, perTokenMegabytes * 1024 * 1024);
  }

  /** Bytes of state per token holding any (for the per-token metrics). */
  perToken(): ReadonlyMap<string, number> {
    return this.budget.perToken();
  }

  /** The session's state; made on first use, counted against `token` (its owner) for its life. */
  of(sessionId: string, token: string): SessionState {
    let state = this.states.get(sessionId);
    if (!state) {
      state = new SessionState(this.budget, token);
      this.states.set(sessionId, state);
    }
    return state;
  }

  drop(sessionId: string): void {
    this.states.get(sessionId)?.clear();
    this.states.delete(sessionId);
  }

  sealCursor(prefix: string, lastKey: string): string {
    const body = Buffer.from(JSON.stringify({ p: prefix, k: lastKey })).toString('base64url');
    return `${body}.${createHmac('sha256', this.cursorKey).update(body).digest('base64url')}`;
  }

  openCursor(cursor: string, prefix: string): string | null {
    const [body, tag] = cursor.split('.');
    if (!body || !tag || createHmac('sha256', this.cursorKey).update(body).digest('base64url') !== tag) return null;
    try {
      const parsed = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as { p: string; k: string };
      return parsed.p === prefix ? parsed.k : null;
    } catch {
      return null;
    }
  }
}
