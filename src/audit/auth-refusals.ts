// Authentication refusals in the audit trail, coalesced as a run's repeated policy refusals
// are (src/policy/recorder.ts): per reason and client address, the first few in a window
// are written one by one and the rest counted into one record (`count`) when the window
// closes or the server stops. 2,000 bad-token requests write a handful of records, not
// 2,000, and none is lost from the totals.
import type { AuditWriter } from './audit';
import type { AuthRecord } from './records';

/** Identical refusals (reason, client address) written one by one in a window before the rest are counted. */
export const AUTH_REFUSALS_WRITTEN_EACH = 5;
/** How long a window lasts: its counted refusals are written when it closes. */
export const AUTH_REFUSAL_WINDOW_MS = 60_000;
/** Distinct (reason, address) groups kept in a window; past it refusals are counted per reason alone. */
export const AUTH_REFUSAL_GROUPS = 1024;

interface Group {
  /** The last refusal counted (its route and address go into the summary). */
  last: AuthRecord;
  seen: number;
  written: number;
}

/** The client's address without its port: one client opens many connections. */
function hostOf(remoteAddress: string): string {
  return remoteAddress.replace(/:\d+$/, '');
}

export class AuthRefusalAudit {
  private groups = new Map<string, Group>();
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly audit: AuditWriter,
    windowMs = AUTH_REFUSAL_WINDOW_MS,
  ) {
    this.timer = setInterval(() => this.flush(), windowMs);
    this.timer.unref();
  }

  refused(record: AuthRecord): void {
    let key = `${record.reason}\u0000${hostOf(record.remote_address)}`;
    if (!this.groups.has(key) && this.groups.size >= AUTH_REFUSAL_GROUPS) key = record.reason;
    let group = this.groups.get(key);
    if (!group) {
      group = { last: record, seen: 0, written: 0 };
      this.groups.set(key, group);
    }
    group.seen++;
    group.last = key === record.reason ? { ...record, remote_address: '*' } : record;
    if (group.written < AUTH_REFUSALS_WRITTEN_EACH) {
      group.written++;
      this.audit.write(record);
    }
  }

  /** Writes one record per group with refusals counted but not written, and starts a new window. */
  flush(): void {
    const groups = this.groups;
    this.groups = new Map();
    for (const group of groups.values()) {
      if (group.seen > group.written) this.audit.write({ ...group.last, count: group.seen - group.written });
    }
  }

  close(): void {
    clearInterval(this.timer);
    this.flush();
  }
}
