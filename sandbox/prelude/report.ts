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
