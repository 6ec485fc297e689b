// The audit writer (stream=audit): adds the fixed header, `event_id` and `schema` to a
// typed record, sorts and flattens it, and writes it as one line with one synchronous
// write. Never throws into the caller; unwritable records are reported on standard error.
import type { LineDestination } from './destination';
import { FORMAT_FAILURE } from './log';
import { encodeLogfmt, LogfmtError } from './logfmt';
import type { AuditRecord } from './records';

export const AUDIT_SCHEMA = 'svc.audit/1';
export const AUDIT_TARGET = 'svc_server::audit';

export interface AuditWriter {
  write(record: AuditRecord): void;
}

export interface AuditWriterDeps {
  enabled: boolean;
  destination: LineDestination;
  clock: () => Date;
  newId: () => string;
  report: (line: string) => void;
}

/** Encodes a record as its audit line; throws LogfmtError when it cannot be written. */
export function encodeAuditRecord(record: AuditRecord, ts: Date, eventId: string): string {
  const fields: Record<string, unknown> = { ...record, event_id: eventId, schema: AUDIT_SCHEMA };
  return encodeLogfmt({ ts, level: 'info', stream: 'audit', target: AUDIT_TARGET, msg: record.type }, fields, { sorted: true });
}

// Placeholders as long as the real values, so a size check matches the written line.
const SIZE_CHECK_TS = new Date(0);
const SIZE_CHECK_ID = '00000000-0000-4000-8000-000000000000';

/**
 * Whether a record can be written (valid keys, within 1 MiB, 63 levels and 4,096 values).
 * For producers that shrink a record until it fits, such as decision summaries.
 */
export function auditRecordFits(record: AuditRecord): boolean {
  try {
    encodeAuditRecord(record, SIZE_CHECK_TS, SIZE_CHECK_ID);
    return true;
  } catch (error) {
    if (error instanceof LogfmtError) return false;
    throw error;
  }
}

export function createAuditWriter(deps: AuditWriterDeps): AuditWriter {
  if (!deps.enabled) return discardAudit;
  return {
    write(record) {
      let line: string;
      try {
        line = encodeAuditRecord(record, deps.clock(), deps.newId());
      } catch {
        // Dropped whole: a partial audit record would mislead more than a missing one.
        deps.report(FORMAT_FAILURE);
        return;
      }
      deps.destination.write(line);
    },
  };
}

/** An audit writer that records nothing (`logging.audit.enabled: false`, tests). */
export const discardAudit: AuditWriter = { write() {} };
