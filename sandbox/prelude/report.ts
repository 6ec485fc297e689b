// The report `collect` hands the runner once main has settled (or can no longer settle):
// JSON text built field by field here, so a toJSON or a patched JSON never reaches it.
import { jsonQuote, NumberIsFinite } from './primordials';
import { native } from './native';
import { webTimers } from './web';
import type { Outcome } from './failure';
import type { Meter } from './meter';

/** Report fields as JSON text, built here: a toJSON or patched JSON cannot reach it. */
function field(name: string, value: string | number | null | undefined): string {
  if (value === undefined) return '';
  const text = value === null ? 'null' : typeof value === 'number' ? (NumberIsFinite(value) ? `${value}` : 'null') : jsonQuote(value);
  return `,${jsonQuote(name)}:${text}`;
}

/** The run's report: how main ended (undefined: it never settled) and the fuel left. */
export function reportText(outcome: Outcome | undefined, meter: Meter | undefined): string {
  const left = meter ? meter.left() : null;
  const fuelLeft = typeof left === 'number' && NumberIsFinite(left) ? left : null;
  const now = outcome ?? {
    ok: false as const,
    name: 'Error',
    message: 'main returned a promise that can never settle: nothing is left that could resolve it (no timer and no host call is pending)',
  };
  const dropped = outcome === undefined ? 0 : webTimers.pendingCount();
  if (dropped > 0) native.console(`[${dropped} pending timer${dropped === 1 ? ' was' : 's were'} dropped: the run ends when main settles]`);
  if (now.ok) return `{"ok":true${field('result', now.result)}${field('fuelLeft', fuelLeft)}}`;
  let denied = '';
  if (now.denied) denied = `,"denied":{"caller":${jsonQuote(now.denied.caller)},"capability":${jsonQuote(now.denied.capability)},"source":${jsonQuote(now.denied.source)}}`;
  return `{"ok":false${field('name', now.name)}${field('message', now.message)}${field('headline', now.headline)}${field('stack', now.stack)}${denied}${field('fuelLeft', fuelLeft)}}`;
}

/**
 * Characters of an outcome's own text up to which its report may be built and copied out in
 * a synchronous call on the runner's main thread (escaped, at most six times as many). A
 * larger one (a result of up to 16 MiB) is built on isolated-vm's thread: `collect`.
 */
const SMALL_REPORT_CHARS = 16 * 1024;

export function reportIsSmall(outcome: Outcome): boolean {
  if (outcome.ok) return textChars(outcome.result) <= SMALL_REPORT_CHARS;
  const { denied } = outcome;
  const deniedChars = denied ? textChars(denied.caller) + textChars(denied.capability) + textChars(denied.source) : 0;
  return textChars(outcome.name) + textChars(outcome.message) + textChars(outcome.headline) + textChars(outcome.stack) + deniedChars <= SMALL_REPORT_CHARS;
}

function textChars(value: unknown): number {
  return typeof value === 'string' ? value.length : 0;
}
