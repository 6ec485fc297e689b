// Text rendering shared by console lines and messages: strings as is, errors as
// `Name: message`, objects as JSON (Map, Set, BigInt, cycles, functions handled). Built on
// the primordials: whatever the program patched, the output is a string.
//
// The JSON is written directly, value by value, into a bounded text: rendering stops as soon
// as the text is full, so a 10-million-element array costs what its first megabyte does (the
// runner keeps at most 1 MiB of console per run anyway). Building the whole JSON first took
// about 105 s for such an array.
import {
  ArrayIsArray,
  ArrayPrototypeJoin,
  ArrayPrototypePush,
  BigIntPrototypeToString,
  FunctionPrototypeCall,
  isErrorLike,
  isMap,
  isSet,
  jsonQuote,
  MapPrototypeForEach,
  NumberIsFinite,
  ObjectKeys,
  own,
  SafeSet,
  SetPrototypeForEach,
  String_,
  StringPrototypeSlice,
  SymbolPrototypeToString,
  TypedArrayPrototypeGetLength,
  typedArrayKind,
} from './primordials';

/** Characters a rendered value or console line keeps: the runner's 1 MiB per run, less room for the note. */
export const TEXT_LIMIT = 1024 * 1024 - 128;
/** Nesting rendered before a level is shown by its kind alone (deeper input overflowed the stack). */
const MAX_DEPTH = 1000;
/** Small pieces are joined into chunks of about this size before they are listed. */
const CHUNK = 8192;

/** Thrown by a full BoundedText; only this module's writers see it (never guest code). */
const FULL: unique symbol = Symbol('full');

/** Text written piece by piece up to a limit in characters; past it, writing throws FULL. */
export class BoundedText {
  private readonly chunks: string[] = [];
  private chunk = '';
  private left: number;
  truncated = false;

  constructor(limit = TEXT_LIMIT) {
    this.left = limit;
  }

  write(piece: string): void {
    if (piece.length > this.left) {
      this.chunk += StringPrototypeSlice(piece, 0, this.left);
      this.left = 0;
      this.truncated = true;
      throw FULL;
    }
    this.left -= piece.length;
    this.chunk += piece;
    if (this.chunk.length >= CHUNK) {
      ArrayPrototypePush(this.chunks, this.chunk);
      this.chunk = '';
    }
  }

  /** `write(piece)`, false (instead of throwing) once the text is full. */
  tryWrite(piece: string): boolean {
    try {
      this.write(piece);
      return true;
    } catch (error) {
      if (error === FULL) return false;
      throw error;
    }
  }

  get remaining(): number {
    return this.left;
  }

  /** What was written. */
  body(): string {
    return ArrayPrototypeJoin(this.chunks, '') + this.chunk;
  }

  /** What was written, with a note when something was cut. */
  text(): string {
    return this.truncated ? `${this.body()} … [truncated: a rendered value or console line keeps at most ${TEXT_LIMIT} characters]` : this.body();
  }

  /** Another text's body written into this one (and its cut, if it was cut); false once full. */
  absorb(other: BoundedText): boolean {
    if (!this.tryWrite(other.body())) return false;
    if (other.truncated) this.truncated = true;
    return !other.truncated;
  }
}

function functionLabel(fn: Function): string {
  let name: unknown;
  try {
    name = own(fn, 'name');
  } catch {
    name = undefined;
  }
  return typeof name === 'string' && name !== '' ? `[Function ${name}]` : '[Function (anonymous)]';
}

/** `Name: message` of an error-like object; fields that are not strings are shown with String(). */
function errorLabel(error: object): string {
  try {
    const name = (error as { name?: unknown }).name;
    const message = (error as { message?: unknown }).message;
    return `${typeof name === 'string' ? name : String_(name)}: ${typeof message === 'string' ? message : String_(message)}`;
  } catch {
    return 'Error: (unreadable error)';
  }
}

/** A string as JSON, quoting no more of it than the text can still take. */
function writeString(out: BoundedText, text: string): void {
  out.write(jsonQuote(text.length > out.remaining ? StringPrototypeSlice(text, 0, out.remaining) : text));
}

/** JSON of `value` as JSON.stringify would write the value after the conversions above. */
function writeJson(out: BoundedText, value: unknown, seen: SafeSet<unknown>, depth: number, viaToJSON = false): void {
  if (typeof value === 'string') return writeString(out, value);
  if (typeof value === 'number') return out.write(NumberIsFinite(value) ? String_(value) : 'null');
  if (typeof value === 'boolean') return out.write(value ? 'true' : 'false');
  if (value === undefined || value === null) return out.write('null');
  if (typeof value === 'bigint') return writeString(out, BigIntPrototypeToString(value));
  if (typeof value === 'function') return writeString(out, functionLabel(value));
  if (typeof value === 'symbol') return writeString(out, SymbolPrototypeToString(value));
  if (seen.has(value)) return writeString(out, '[Circular]');
  if (depth >= MAX_DEPTH) return writeString(out, ArrayIsArray(value) ? '[Array]' : '[Object]');
  seen.add(value);
  try {
    writeObject(out, value as object, seen, depth + 1, viaToJSON);
  } finally {
    seen.delete(value);
  }
}

function writeObject(out: BoundedText, value: object, seen: SafeSet<unknown>, depth: number, viaToJSON: boolean): void {
  if (isErrorLike(value)) return writeString(out, errorLabel(value));
  if (isMap(value)) {
    let first = true;
    out.write('{');
    MapPrototypeForEach(value, (item: unknown, key: unknown) => {
      out.write(first ? '' : ',');
      first = false;
      writeString(out, String_(key));
      out.write(':');
      writeJson(out, item, seen, depth);
    });
    return out.write('}');
  }
  if (isSet(value)) {
    let first = true;
    out.write('[');
    SetPrototypeForEach(value, (item: unknown) => {
      out.write(first ? '' : ',');
      first = false;
      writeJson(out, item, seen, depth);
    });
    return out.write(']');
  }
  if (ArrayIsArray(value)) {
    const length = (value as unknown[]).length;
    out.write('[');
    for (let i = 0; i < length; i++) {
      if (i > 0) out.write(',');
      writeJson(out, (value as unknown[])[i], seen, depth);
    }
    return out.write(']');
  }
  const toJSON = viaToJSON ? undefined : (value as { toJSON?: unknown }).toJSON;
  // The value a toJSON returned is not asked again (JSON applies it once).
  if (typeof toJSON === 'function') return writeJson(out, FunctionPrototypeCall(toJSON as () => unknown, value), seen, depth, true);
  // Typed arrays list their elements as an object keyed by index, read one at a time.
  const kind = typedArrayKind(value);
  if (kind !== undefined) {
    const length = TypedArrayPrototypeGetLength(value as ArrayBufferView);
    out.write('{');
    for (let i = 0; i < length; i++) {
      out.write(i > 0 ? ',"' : '"');
      out.write(String_(i));
      out.write('":');
      writeJson(out, (value as unknown as unknown[])[i], seen, depth);
    }
    return out.write('}');
  }
  const keys = ObjectKeys(value);
  out.write('{');
  for (let i = 0; i < keys.length; i++) {
    if (i > 0) out.write(',');
    writeString(out, keys[i]);
    out.write(':');
    writeJson(out, (value as Record<string, unknown>)[keys[i]], seen, depth);
  }
  out.write('}');
}

/** JSON of `value` written into `out`; false once `out` is full. Throws what a getter or toJSON threw. */
export function writeValueJson(out: BoundedText, value: unknown): boolean {
  try {
    writeJson(out, value, new SafeSet<unknown>(), 0);
    return true;
  } catch (error) {
    if (error === FULL) return false;
    throw error;
  }
}

/** What `write` puts into a fresh BoundedText, or `[unrenderable value]` when reading the value threw. */
function boundedText(write: (out: BoundedText) => unknown): string {
  const out = new BoundedText();
  try {
    write(out);
  } catch {
    return '[unrenderable value]';
  }
  return out.text();
}

export function safeJson(value: unknown): string {
  return boundedText((out) => writeValueJson(out, value));
}

/** A value as text (strings as is) into `out`; false once `out` is full. */
export function writeValue(out: BoundedText, value: unknown): boolean {
  if (typeof value === 'string') return out.tryWrite(value);
  if (value === undefined || value === null || typeof value === 'number' || typeof value === 'boolean') return out.tryWrite(`${value}`);
  if (typeof value === 'bigint') return out.tryWrite(BigIntPrototypeToString(value));
  if (typeof value === 'symbol') return out.tryWrite(SymbolPrototypeToString(value));
  if (typeof value === 'function') return out.tryWrite(functionLabel(value));
  if (isErrorLike(value)) return out.tryWrite(errorLabel(value as object));
  return writeValueJson(out, value);
}

/** A value as text into `out`, or `[unrenderable value]` when reading it threw; false once `out` is full. */
export function writeRendered(out: BoundedText, value: unknown): boolean {
  if (typeof value === 'string') return out.tryWrite(value);
  const piece = new BoundedText(out.remaining);
  try {
    writeValue(piece, value);
  } catch {
    return out.tryWrite('[unrenderable value]');
  }
  return out.absorb(piece);
}

/** A value as text (strings as is), at most TEXT_LIMIT characters and a note. */
export function renderValue(value: unknown): string {
  if (typeof value === 'string' && value.length <= TEXT_LIMIT) return value;
  return boundedText((out) => writeValue(out, value));
}
