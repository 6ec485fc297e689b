// Free-time arithmetic of @svc/google-calendar (pure): merge busy intervals, take the gaps
// of a window, cut them to working hours in an IANA time zone, keep those long enough.
import type { Hours } from "./args";

/** A half-open interval in epoch milliseconds. */
interface Span {
  start: number;
  end: number;
}

/** A time range, RFC 3339 UTC. */
export interface Interval {
  start: string;
  end: string;
}

const DAY = 86400000;

function localParts(ms: number, timeZone: string): { y: number; m: number; d: number; weekday: number; offset: number } {
  const parts: Record<string, string> = {};
  const format = new Intl.DateTimeFormat("en-US", { timeZone, hourCycle: "h23", year: "numeric", month: "2-digit", day: "2-digit", hour: "2-digit", minute: "2-digit", second: "2-digit" });
  for (const p of format.formatToParts(new Date(ms))) parts[p.type] = p.value;
  const y = Number(parts.year);
  const m = Number(parts.month);
  const d = Number(parts.day);
  const asUtc = Date.UTC(y, m - 1, d, Number(parts.hour) % 24, Number(parts.minute), Number(parts.second));
  return { y, m, d, weekday: new Date(Date.UTC(y, m - 1, d)).getUTCDay(), offset: asUtc - Math.floor(ms / 1000) * 1000 };
}

/** The instant of a local wall-clock minute on a local date (the offset re-checked once for DST). */
function localToUtc(y: number, m: number, d: number, minute: number, timeZone: string): number {
  const wall = Date.UTC(y, m - 1, d, 0, minute);
  let guess = wall - localParts(wall, timeZone).offset;
  guess = wall - localParts(guess, timeZone).offset;
  return guess;
}

function merge(spans: Span[]): Span[] {
  const sorted = spans.filter((s) => s.end > s.start).sort((a, b) => a.start - b.start);
  const out: Span[] = [];
  for (const s of sorted) {
    const last = out[out.length - 1];
    if (last && s.start <= last.end) last.end = Math.max(last.end, s.end);
    else out.push({ ...s });
  }
  return out;
}

/** Gaps of at least `durationMs` in [timeMin, timeMax] outside every busy interval (and inside working hours when given). */
export function freeSlots(busy: Interval[], timeMin: string, timeMax: string, durationMs: number, hours: Hours | null, timeZone: string): Interval[] {
  const min = Date.parse(timeMin);
  const max = Date.parse(timeMax);
  const taken = merge(busy.map((b) => ({ start: Date.parse(b.start), end: Date.parse(b.end) })).filter((s) => !Number.isNaN(s.start) && !Number.isNaN(s.end)));
  let gaps: Span[] = [];
  let cursor = min;
  for (const s of taken) {
    if (s.end <= cursor) continue;
    if (s.start >= max) break;
    if (s.start > cursor) gaps.push({ start: cursor, end: Math.min(s.start, max) });
    cursor = Math.max(cursor, s.end);
  }
  if (cursor < max) gaps.push({ start: cursor, end: max });
  if (hours) {
    const windows: Span[] = [];
    for (let t = min - DAY; t <= max + DAY; t += DAY) {
      const day = localParts(t, timeZone);
      if (hours.weekdaysOnly && (day.weekday === 0 || day.weekday === 6)) continue;
      const w = { start: localToUtc(day.y, day.m, day.d, hours.startMinute, timeZone), end: localToUtc(day.y, day.m, day.d, hours.endMinute, timeZone) };
      if (!windows.some((x) => x.start === w.start)) windows.push(w);
    }
    const cut: Span[] = [];
    for (const g of gaps) for (const w of windows) {
      const start = Math.max(g.start, w.start);
      const end = Math.min(g.end, w.end);
      if (end > start) cut.push({ start, end });
    }
    gaps = merge(cut);
  }
  return gaps.filter((g) => g.end - g.start >= durationMs).map((g) => ({ start: new Date(g.start).toISOString(), end: new Date(g.end).toISOString() }));
}
