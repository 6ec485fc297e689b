// Per-session key/value state for `svc:session`: JSON text per key,
// per-session caps, and one server-wide budget (`max_session_state_memory`) reserved
// atomically, so a `set` that would pass it is refused and never evicts another session.
import { createHmac, randomBytes } from 'node:crypto';

export const MAX_KEY_UNITS = 256;
export const MAX_VALUE_BYTES = 1024 * 1024;
export const MAX_ENTRIES = 1024;
export const MAX_SESSION_BYTES = 16 * 1024 * 1024;
const ENTRY_OVERHEAD = 64;

export class StateBudget {
  private used = 0;
  constructor(readonly limitBytes: number) {}
  /** Takes `bytes` (may be negative) when the total stays within the limit. */
  reserve(bytes: number): boolean {
    if (bytes > 0 && this.used + bytes > this.limitBytes) return false;
    this.used = Math.max(0, this.used + bytes);
    return true;
  }
  get inUse(): number {
    return this.used;
  }
}

export type StateRefusal = { kind: 'session_limit'; message: string } | { kind: 'server_budget'; message: string };

const entrySize = (key: string, json: string) => 2 * (key.length + json.length);

export class SessionState {
  private readonly entries = new Map<string, string>();
  private total = 0;

  constructor(private readonly budget: StateBudget) {}

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
    if (!this.budget.reserve(after - before)) {
      return {
        kind: 'server_budget',
        message: `session.set ${key}: the server's session-state budget (max_session_state_memory, ${this.budget.limitBytes} bytes across all sessions) would be exceeded; nothing was stored`,
      };
    }
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
    this.budget.reserve(-size);
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

  constructor(maxMegabytes: number) {
    this.budget = new StateBudget(maxMegabytes * 1024 * 1024);
  }

  of(sessionId: string): SessionState {
    let state = this.states.get(sessionId);
    if (!state) {
      state = new SessionState(this.budget);
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
