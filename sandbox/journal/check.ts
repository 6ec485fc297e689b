// A journal as it arrives from a runner or a tape is data to check, not to trust: each
// entry is read into its known shape (unknown fields dropped); the pool's JournalIntake
// keeps the whole within the byte bound it was recorded under.
import type { Divergence, HostCallEntry, JournalEntry } from './entries';

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

const finite = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value);

/** One entry in its known shape, or a description of what is wrong with it. */
export function readEntry(raw: unknown): JournalEntry | string {
  if (!isRecord(raw)) return 'an entry must be an object';
  switch (raw.kind) {
    case 'clock':
      return finite(raw.value) ? { kind: 'clock', value: raw.value } : 'a clock entry needs a numeric value';
    case 'random':
      return typeof raw.bytes === 'string' ? { kind: 'random', bytes: raw.bytes } : 'a random entry needs bytes (base64)';
    case 'order':
      return raw.event === 'timer' && finite(raw.now) ? { kind: 'order', event: 'timer', now: raw.now } : 'an order entry needs event "timer" and a numeric now';
    case 'host_call': {
      if (!Number.isInteger(raw.call) || (raw.call as number) < 0) return 'a host_call entry needs call (its start index, an integer >= 0)';
      if (typeof raw.capability !== 'string' || typeof raw.request_digest !== 'string') return 'a host_call entry needs capability and request_digest (strings)';
      const entry: HostCallEntry = { kind: 'host_call', call: raw.call as number, capability: raw.capability, request_digest: raw.request_digest, fuel: finite(raw.fuel) && raw.fuel >= 0 ? raw.fuel : 0 };
      if (raw.sync === true) entry.sync = true;
      if (raw.withheld === true) entry.withheld = true;
      if (Array.isArray(raw.blobs)) {
        if (!raw.blobs.every((blob) => typeof blob === 'string')) return 'a host_call entry\'s blobs must be base64 strings';
        entry.blobs = raw.blobs as string[];
      }
      if (typeof raw.reply === 'string') entry.reply = raw.reply;
      else if (isRecord(raw.error)) {
        if (typeof raw.error.name !== 'string' || typeof raw.error.message !== 'string') return 'a host_call entry\'s error needs name and message (strings)';
        entry.error = raw.error as HostCallEntry['error'];
      } else if ('answer' in raw) entry.answer = raw.answer;
      else if (!entry.withheld) return 'a host_call entry needs answer or error';
      return entry;
    }
    default:
      return 'an entry\'s kind must be host_call, clock, random or order';
  }
}

export function readDivergence(raw: unknown): Divergence | undefined {
  if (!isRecord(raw) || !Number.isInteger(raw.step) || typeof raw.expected !== 'string' || typeof raw.got !== 'string' || typeof raw.message !== 'string') return undefined;
  return { step: raw.step as number, expected: raw.expected.slice(0, 4096), got: raw.got.slice(0, 4096), message: raw.message.slice(0, 8192) };
}
