// `performance` (High Resolution Time and User Timing basics): now() and timeOrigin at
// 1 ms resolution (coarse on purpose: no timer finer than the clock programs already have),
// toJSON, and marks and measures kept in a per-run list (bounded: past MAX_ENTRIES the
// oldest go). Performance is an EventTarget, as the standard defines it.
import { EventTarget } from './web/event';
import { ArrayPrototypePush, arrayFilter, DateNow, MathFloor, ObjectDefineProperty, ObjectFreeze, String_, TypeError_ } from './primordials';
import { newDOMException } from './dom-exception';
import { interfaceName } from './idl';

const MAX_ENTRIES = 10_000;
/** Read from the run's clock when the program first asks (a run that never does reads no clock: nothing to journal). */
let origin = -1;

/** The run's clock starts over (called when a run starts). */
export function resetTimeOrigin(): void {
  origin = -1;
  entries = [];
}

function timeOrigin(): number {
  // The run began before it first asked: the origin is one clock step (1 ms) earlier, so
  // now() is positive from its first reading, as the standard's time origin makes it.
  if (origin < 0) origin = DateNow() - 1;
  return origin;
}

function now(): number {
  const start = timeOrigin();
  return MathFloor(DateNow() - start);
}

let entries: PerformanceEntry[] = [];
let construct = false;

export class PerformanceEntry {
  readonly #name: string;
  readonly #type: string;
  readonly #start: number;
  readonly #duration: number;
  constructor(name: string, type: string, start: number, duration: number) {
    if (!construct) throw new TypeError_('Illegal constructor');
    this.#name = name;
    this.#type = type;
    this.#start = start;
    this.#duration = duration;
  }
  get name(): string {
    return this.#name;
  }
  get entryType(): string {
    return this.#type;
  }
  get startTime(): number {
    return this.#start;
  }
  get duration(): number {
    return this.#duration;
  }
  toJSON(): object {
    return { name: this.#name, entryType: this.#type, startTime: this.#start, duration: this.#duration };
  }
}

function record<T extends PerformanceEntry>(make: () => T): T {
  construct = true;
  let entry: T;
  try {
    entry = make();
  } finally {
    construct = false;
  }
  if (entries.length >= MAX_ENTRIES) entries = arrayFilter(entries, (_, i) => i > 0);
  ArrayPrototypePush(entries, entry);
  return entry;
}

export class PerformanceMark extends PerformanceEntry {
  readonly #detail: unknown;
  constructor(name: string, options?: { startTime?: number; detail?: unknown }) {
    const start = options?.startTime === undefined ? now() : +(options.startTime as number);
    if (!(start >= 0)) throw new TypeError_('PerformanceMark: startTime must be a non-negative number');
    const wasConstructing = construct;
    construct = true;
    try {
      super(String_(name), 'mark', start, 0);
    } finally {
      construct = wasConstructing;
    }
    this.#detail = options?.detail ?? null;
  }
  get detail(): unknown {
    return this.#detail;
  }
}

export class PerformanceMeasure extends PerformanceEntry {
  get detail(): null {
    return null;
  }
}

/** A mark's start time by name (the latest of that name). */
function markTime(name: string): number {
  for (let i = entries.length - 1; i >= 0; i--) if (entries[i].entryType === 'mark' && entries[i].name === name) return entries[i].startTime;
  throw newDOMException(`performance.measure: no mark named '${name}'`, 'SyntaxError');
}

function pointTime(point: unknown): number {
  return typeof point === 'number' ? point : markTime(String_(point));
}

export class Performance extends EventTarget {
  constructor() {
    if (!construct) throw new TypeError_('Illegal constructor');
    super();
  }
  now(): number {
    return now();
  }
  get timeOrigin(): number {
    return timeOrigin();
  }
  toJSON(): object {
    return { timeOrigin: timeOrigin() };
  }
  mark(name: string, options?: { startTime?: number; detail?: unknown }): PerformanceMark {
    const mark = new PerformanceMark(name, options);
    return record(() => mark);
  }
  measure(name: string, start?: unknown, end?: unknown): PerformanceMeasure {
    let from = 0;
    let to = now();
    if (start !== null && typeof start === 'object') {
      const options = start as { start?: unknown; end?: unknown; duration?: number };
      if (options.start !== undefined) from = pointTime(options.start);
      if (options.end !== undefined) to = pointTime(options.end);
      else if (options.duration !== undefined) to = from + +options.duration;
    } else {
      if (start !== undefined) from = pointTime(start);
      if (end !== undefined) to = pointTime(end);
    }
    return record(() => new PerformanceMeasure(String_(name), 'measure', from, to - from));
  }
  getEntries(): PerformanceEntry[] {
    return arrayFilter(entries, () => true);
  }
  getEntriesByType(type: string): PerformanceEntry[] {
    const wanted = String_(type);
    return arrayFilter(entries, (entry) => entry.entryType === wanted);
  }
  getEntriesByName(name: string, type?: string): PerformanceEntry[] {
    const wanted = String_(name);
    return arrayFilter(entries, (entry) => entry.name === wanted && (type === undefined || entry.entryType === String_(type)));
  }
  clearMarks(name?: string): void {
    entries = arrayFilter(entries, (entry) => entry.entryType !== 'mark' || (name !== undefined && entry.name !== String_(name)));
  }
  clearMeasures(name?: string): void {
    entries = arrayFilter(entries, (entry) => entry.entryType !== 'measure' || (name !== undefined && entry.name !== String_(name)));
  }
}

export function makePerformance(): Performance {
  construct = true;
  try {
    return new Performance();
  } finally {
    construct = false;
  }
}

// Tagged by hand: the bundler may rename a class (`_Performance`).
const CLASSES: ReadonlyArray<readonly [{ prototype: object }, string]> = [
  [PerformanceEntry, 'PerformanceEntry'],
  [PerformanceMark, 'PerformanceMark'],
  [PerformanceMeasure, 'PerformanceMeasure'],
  [Performance, 'Performance'],
];
for (let i = 0; i < CLASSES.length; i++) {
  ObjectDefineProperty(CLASSES[i][0], 'name', { value: CLASSES[i][1], configurable: true });
  interfaceName(CLASSES[i][0], CLASSES[i][1]);
  ObjectFreeze(CLASSES[i][0].prototype);
}
