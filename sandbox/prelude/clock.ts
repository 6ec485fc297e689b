// The program's clock and Math.random, made replayable: every clock reading comes from the
// runner (which journals it, or answers it from a journal in a replay), and Math.random is a
// generator seeded with random bytes from the runner (journalled the same way). `Date` is the
// engine's own, with only its readings of "now" taken from that clock.
import { DateNow, Date_, MathImul, NumberIsFinite, ObjectDefineProperty, ReflectConstruct, setClockSource, uncurryThis } from './primordials';
import { native } from './native';
import { randomBytes } from './random';

const DatePrototypeToString = uncurryThis(Date_.prototype.toString);

/** The runner's clock; anything but a finite number from it reads as NaN (an invalid date). */
function runnerClock(): number {
  const value = native.clock();
  return typeof value === 'number' && NumberIsFinite(value) ? value : NaN;
}

/** `Date` with "now" from the run's clock: `Date()`, `new Date()` and `Date.now()`. */
function makeDate(): DateConstructor {
  const NativeDate = Date_;
  const JournalledDate = function Date(this: unknown, ...args: unknown[]): unknown {
    if (new.target === undefined) return DatePrototypeToString(new NativeDate(DateNow()));
    return ReflectConstruct(NativeDate, args.length === 0 ? [DateNow()] : args, new.target);
  } as unknown as DateConstructor;
  ObjectDefineProperty(JournalledDate, 'length', { value: 7, configurable: true });
  ObjectDefineProperty(JournalledDate, 'prototype', { value: NativeDate.prototype, writable: false, enumerable: false, configurable: false });
  ObjectDefineProperty(NativeDate.prototype, 'constructor', { value: JournalledDate, writable: true, enumerable: false, configurable: true });
  const statics: Record<string, unknown> = { now: () => DateNow(), parse: NativeDate.parse, UTC: NativeDate.UTC };
  for (const name of ['now', 'parse', 'UTC']) ObjectDefineProperty(JournalledDate, name, { value: statics[name], writable: true, enumerable: false, configurable: true });
  ObjectDefineProperty(statics.now as object, 'name', { value: 'now', configurable: true });
  return JournalledDate;
}

// xoshiro128**: four 32-bit words of state, seeded on first use from 16 bytes of the runner's randomness.
let s0 = 0;
let s1 = 0;
let s2 = 0;
let s3 = 0;
let seeded = false;

function seed(): void {
  const b = randomBytes(16);
  const word = (i: number) => (b[i] | (b[i + 1] << 8) | (b[i + 2] << 16) | (b[i + 3] << 24)) >>> 0;
  s0 = word(0);
  s1 = word(4);
  s2 = word(8);
  s3 = word(12);
  // The all-zero state would repeat zero forever.
  if ((s0 | s1 | s2 | s3) === 0) s0 = 1;
  seeded = true;
}

const rotl = (x: number, k: number) => ((x << k) | (x >>> (32 - k))) >>> 0;

function next32(): number {
  const result = MathImul(rotl(MathImul(s1, 5) >>> 0, 7), 9) >>> 0;
  const t = (s1 << 9) >>> 0;
  s2 = (s2 ^ s0) >>> 0;
  s3 = (s3 ^ s1) >>> 0;
  s1 = (s1 ^ s2) >>> 0;
  s0 = (s0 ^ s3) >>> 0;
  s2 = (s2 ^ t) >>> 0;
  s3 = rotl(s3, 11);
  return result;
}

/** A double in [0, 1) with 53 random bits. */
function random(): number {
  if (!seeded) seed();
  return ((next32() >>> 5) * 67108864 + (next32() >>> 6)) / 9007199254740992;
}

/** Installs the journalled clock (trusted code's DateNow included), `Date` and `Math.random`. */
export function installClock(define: (name: string, value: unknown) => void): void {
  setClockSource(runnerClock);
  define('Date', makeDate());
  ObjectDefineProperty(Math, 'random', { value: random, writable: true, enumerable: false, configurable: true });
}
