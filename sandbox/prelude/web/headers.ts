// Headers per the Fetch standard: names are tokens kept lower-case, values are normalised
// (leading and trailing HTTP whitespace removed) and may not hold NUL, CR or LF or anything
// past U+00FF; several values of one name read combined with ", ", except set-cookie,
// which iterates one entry per value (getSetCookie gives them all). Iteration is sorted by
// name and live (each step reads the current headers). A guard makes a fetched response's
// headers immutable, as in Deno.
import { IteratorPrototype, SymbolToStringTag, ObjectPrototypeHasOwnProperty, JSONStringify, ObjectDefineProperty, ReflectApply, ArrayIsArray, ArrayPrototypePush, ArrayPrototypeSort, MapPrototypeDelete, MapPrototypeForEach, MapPrototypeGet, MapPrototypeHas, MapPrototypeSet, ObjectCreate, ObjectFreeze, ObjectGetPrototypeOf, RegExpPrototypeTest, SafeMap, StringCtor, StringPrototypeCharCodeAt, StringPrototypeSlice, StringPrototypeToLowerCase, SymbolIterator } from './primordials';
import { ObjectGetOwnPropertyDescriptor, ReflectOwnKeys, SafeWeakMap } from '../primordials';

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const BAD_VALUE = /[\0\r\n]/;

/** WebIDL ByteString: every character must fit in a byte. */
function byteString(value: unknown, what: string): string {
  if (typeof value === 'symbol') throw new TypeError(`${what} cannot be a symbol`);
  const text = StringCtor(value);
  for (let i = 0; i < text.length; i++) {
    if (StringPrototypeCharCodeAt(text, i) > 0xff) throw new TypeError(`${what} ${JSONStringify(text)} has a character above U+00FF (header names and values are bytes)`);
  }
  return text;
}

function nameOf(value: unknown): string {
  const name = byteString(value, 'Headers: the name');
  if (!RegExpPrototypeTest(TOKEN, name)) throw new TypeError(`Headers: ${JSONStringify(name)} is not a valid header name`);
  return StringPrototypeToLowerCase(name);
}

function isHttpWhitespace(code: number): boolean {
  return code === 0x20 || code === 0x09 || code === 0x0a || code === 0x0d;
}
function valueOf(value: unknown): string {
  const text = byteString(value, 'Headers: the value');
  let start = 0;
  let end = text.length;
  while (start < end && isHttpWhitespace(StringPrototypeCharCodeAt(text, start))) start++;
  while (end > start && isHttpWhitespace(StringPrototypeCharCodeAt(text, end - 1))) end--;
  const normalised = StringPrototypeSlice(text, start, end);
  if (RegExpPrototypeTest(BAD_VALUE, normalised)) throw new TypeError('Headers: a header value must not contain NUL, CR or LF');
  return normalised;
}


/** A fresh iterator over a snapshot (never the program-patchable array iterator). */
export function iterate<T>(items: T[]): IterableIterator<T> {
  let index = 0;
  return liveIterator<T>(null, () => items, () => index++);
}

const iteratorPrototypes = new SafeMap<string, object>();
/**
 * An iterator whose every step reads `current()` afresh (WebIDL pair iterators are live),
 * on a prototype per kind that inherits %IteratorPrototype% and is tagged `<kind> Iterator`.
 */
export function liveIterator<T>(kind: string | null, current: () => T[], nextIndex?: () => number): IterableIterator<T> {
  const key = kind ?? '';
  let prototype = MapPrototypeGet(iteratorPrototypes, key);
  if (prototype === undefined) {
    prototype = ObjectCreate(IteratorPrototype);
    ObjectDefineProperty(prototype, 'next', {
      writable: true,
      enumerable: true,
      configurable: true,
      value: function next(this: { step?: () => IteratorResult<T> }): IteratorResult<T> {
        const step = typeof this === 'object' && this !== null ? stepOf.get(this) : undefined;
        if (step === undefined) throw new TypeError(`${kind ?? 'iterator'}.next: illegal invocation`);
        return step() as IteratorResult<T>;
      },
    });
    if (kind !== null) ObjectDefineProperty(prototype, SymbolToStringTag, { value: `${kind} Iterator`, configurable: true });
    ObjectFreeze(prototype);
    MapPrototypeSet(iteratorPrototypes, key, prototype);
  }
  const iterator = ObjectCreate(prototype);
  let index = 0;
  stepOf.set(iterator, () => {
    const items = current();
    const at = nextIndex === undefined ? index++ : nextIndex();
    return at < items.length ? { value: items[at], done: false } : { value: undefined, done: true };
  });
  return iterator as IterableIterator<T>;
}
const stepOf = new SafeWeakMap<object, () => IteratorResult<unknown>>();

/** Reads a program-given sequence (array, or any iterable) into a fresh array. */
export function listOf(value: unknown, what: string): unknown[] {
  const out: unknown[] = [];
  if (value === null || value === undefined) throw new TypeError(`${what} must be iterable`);
  // An array without its own iterator is read by index: a program that replaced
  // Array.prototype[Symbol.iterator] does not steer trusted code; one given its own is honoured.
  if (ArrayIsArray(value) && !ObjectPrototypeHasOwnProperty(value, SymbolIterator)) {
    for (let i = 0; i < value.length; i++) ArrayPrototypePush(out, value[i]);
    return out;
  }
  const method = (value as { [SymbolIterator]?: unknown })[SymbolIterator];
  if (typeof method !== 'function') throw new TypeError(`${what} must be iterable`);
  const iterator = ReflectApply(method as () => Iterator<unknown>, value, []) as Iterator<unknown>;
  if (typeof iterator !== 'object' || iterator === null) throw new TypeError(`${what}: its iterator is not an object`);
  const next = iterator.next;
  for (;;) {
    const step = ReflectApply(next, iterator, []) as IteratorResult<unknown>;
    if (typeof step !== 'object' || step === null) throw new TypeError(`${what}: its iterator returned a non-object`);
    if (step.done) return out;
    ArrayPrototypePush(out, step.value);
  }
}

export type HeadersInit = Headers | Array<[string, string]> | Record<string, string>;

/** Makes headers immutable (a fetched response's). */
export let freezeHeaders: (headers: Headers) => void;
/** The headers as a plain record of combined values (what the host takes). */
export let headerRecord: (headers: Headers) => Record<string, string>;
let pairsOf: (headers: Headers) => Array<[string, string]>;

/** The names (0) or the values (1) of `pairsOf(headers)`, in its order. */
function columnOf(headers: Headers, column: 0 | 1): string[] {
  const pairs = pairsOf(headers);
  const out: string[] = [];
  for (let i = 0; i < pairs.length; i++) ArrayPrototypePush(out, pairs[i][column]);
  return out;
}

export class Headers {
  readonly #values = new SafeMap<string, string[]>();
  #immutable = false;

  constructor(init: HeadersInit | undefined = undefined) {
    if (init === undefined) return;
    if (typeof init !== 'object' || init === null) throw new TypeError('Headers: init must be a Headers, a sequence of [name, value] pairs or a record of strings');
    const method = (init as { [SymbolIterator]?: unknown })[SymbolIterator];
    if (method !== undefined && method !== null) {
      const pairs = listOf(init, 'Headers init');
      for (let i = 0; i < pairs.length; i++) {
        const pair = pairs[i];
        if (typeof pair !== 'object' || pair === null) throw new TypeError('Headers: each pair must be a sequence of a name and a value');
        const items = listOf(pair, 'a Headers pair');
        if (items.length !== 2) throw new TypeError('Headers: each pair must have exactly a name and a value');
        this.#add(items[0], items[1]);
      }
      return;
    }
    // A record<ByteString, ByteString>: own enumerable keys in order (symbols refused).
    const keys = ReflectOwnKeys(init);
    const entries: Array<[unknown, unknown]> = [];
    for (let i = 0; i < keys.length; i++) {
      const descriptor = ObjectGetOwnPropertyDescriptor(init, keys[i]);
      if (descriptor === undefined || !descriptor.enumerable) continue;
      const name = byteString(keys[i], 'Headers: the name');
      // The whole record is converted (keys and values to ByteStrings) before any is appended.
      ArrayPrototypePush(entries, [name, byteString((init as Record<PropertyKey, unknown>)[keys[i]], 'Headers: the value')]);
    }
    for (let i = 0; i < entries.length; i++) this.#add(entries[i][0], entries[i][1]);
  }

  #add(name: unknown, value: unknown): void {
    const key = nameOf(name);
    const text = valueOf(value);
    this.#writable();
    const list = MapPrototypeGet(this.#values, key);
    if (list === undefined) MapPrototypeSet(this.#values, key, [text]);
    else ArrayPrototypePush(list, text);
  }

  #writable(): void {
    if (this.#immutable) throw new TypeError('Headers: these headers are immutable (a fetched response); copy them with new Headers(...)');
  }

  append(name: string, value: string): void {
    if (arguments.length < 2) throw new TypeError('Headers.append: pass a name and a value');
    this.#add(name, value);
  }
  set(name: string, value: string): void {
    if (arguments.length < 2) throw new TypeError('Headers.set: pass a name and a value');
    const key = nameOf(name);
    const text = valueOf(value);
    this.#writable();
    MapPrototypeSet(this.#values, key, [text]);
  }
  delete(name: string): void {
    if (arguments.length < 1) throw new TypeError('Headers.delete: pass a name');
    const key = nameOf(name);
    this.#writable();
    MapPrototypeDelete(this.#values, key);
  }
  get(name: string): string | null {
    if (arguments.length < 1) throw new TypeError('Headers.get: pass a name');
    return this.#combined(nameOf(name));
  }
  #combined(key: string): string | null {
    const list = MapPrototypeGet(this.#values, key);
    if (list === undefined) return null;
    let out = '';
    for (let i = 0; i < list.length; i++) out += (i > 0 ? ', ' : '') + list[i];
    return out;
  }
  getSetCookie(): string[] {
    const list = MapPrototypeGet(this.#values, 'set-cookie');
    const out: string[] = [];
    if (list) for (let i = 0; i < list.length; i++) ArrayPrototypePush(out, list[i]);
    return out;
  }
  has(name: string): boolean {
    if (arguments.length < 1) throw new TypeError('Headers.has: pass a name');
    return MapPrototypeHas(this.#values, nameOf(name));
  }
  /** The standard's "sort and combine": by name; set-cookie values stay separate. */
  #sorted(): Array<[string, string]> {
    const names: string[] = [];
    MapPrototypeForEach(this.#values, (_values: string[], name: string) => ArrayPrototypePush(names, name));
    ArrayPrototypeSort(names, (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0));
    const out: Array<[string, string]> = [];
    for (let i = 0; i < names.length; i++) {
      if (names[i] === 'set-cookie') {
        const cookies = MapPrototypeGet(this.#values, 'set-cookie')!;
        for (let j = 0; j < cookies.length; j++) ArrayPrototypePush(out, [names[i], cookies[j]]);
      } else ArrayPrototypePush(out, [names[i], this.#combined(names[i])!]);
    }
    return out;
  }
  entries(): IterableIterator<[string, string]> {
    return liveIterator('Headers', () => pairsOf(this));
  }
  keys(): IterableIterator<string> {
    return liveIterator('Headers', () => columnOf(this, 0));
  }
  values(): IterableIterator<string> {
    return liveIterator('Headers', () => columnOf(this, 1));
  }
  forEach(callback: (value: string, name: string, headers: Headers) => void, thisArg?: unknown): void {
    if (typeof callback !== 'function') throw new TypeError('Headers.forEach: the callback must be a function');
    // Live as well: a callback that changes the headers sees the change on the next step.
    for (let i = 0; ; i++) {
      const pairs = this.#sorted();
      if (i >= pairs.length) return;
      ReflectApply(callback, thisArg, [pairs[i][1], pairs[i][0], this]);
    }
  }
  declare [Symbol.iterator]: () => IterableIterator<[string, string]>;
  get [SymbolToStringTag](): string {
    return 'Headers';
  }

  static {
    freezeHeaders = (headers) => {
      headers.#immutable = true;
    };
    headerRecord = (headers) => {
      const out: Record<string, string> = {};
      MapPrototypeForEach(headers.#values, (_values: string[], name: string) => {
        ObjectDefineProperty(out, name, { value: headers.#combined(name)!, enumerable: true, writable: true, configurable: true });
      });
      return out;
    };
    pairsOf = (headers) => {
      if (typeof headers !== 'object' || headers === null || !(#values in headers)) throw new TypeError('Headers iterator: illegal invocation');
      return headers.#sorted();
    };
  }
}
// Headers.prototype[Symbol.iterator] is entries itself (WebIDL pair iterators).
ObjectDefineProperty(Headers.prototype, SymbolIterator, { value: Headers.prototype.entries, writable: true, enumerable: false, configurable: true });
