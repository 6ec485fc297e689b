// Headers: names case-insensitive (kept lower-case), several values per name combined with
// ", " when read, iteration sorted by name. A guard makes a fetched response's headers
// immutable, as in Deno.
import { JSONStringify, ObjectDefineProperty, ReflectApply, ArrayIsArray, ArrayPrototypePush, ArrayPrototypeSort, MapPrototypeDelete, MapPrototypeForEach, MapPrototypeGet, MapPrototypeHas, MapPrototypeSet, ObjectKeys, RegExpPrototypeTest, SafeMap, StringCtor, StringPrototypeToLowerCase, StringPrototypeTrim, SymbolIterator } from './primordials';

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const BAD_VALUE = /[\0\r\n]/;

function nameOf(value: unknown): string {
  const name = StringCtor(value);
  if (!RegExpPrototypeTest(TOKEN, name)) throw new TypeError(`Headers: ${JSONStringify(name)} is not a valid header name`);
  return StringPrototypeToLowerCase(name);
}

function valueOf(value: unknown): string {
  const text = StringPrototypeTrim(StringCtor(value));
  if (RegExpPrototypeTest(BAD_VALUE, text)) throw new TypeError('Headers: a header value must not contain NUL, CR or LF');
  return text;
}

/** A fresh iterator over a snapshot (never the program-patchable array iterator). */
export function iterate<T>(items: T[]): IterableIterator<T> {
  let index = 0;
  const iterator: { next(): IteratorResult<T>; [Symbol.iterator](): unknown } = {
    next(): IteratorResult<T> {
      return index < items.length ? { value: items[index++], done: false } : { value: undefined as never, done: true };
    },
    [SymbolIterator]() {
      return iterator;
    },
  };
  return iterator as IterableIterator<T>;
}

/** Reads a program-given sequence (array, or any iterable) into a fresh array. */
export function listOf(value: unknown, what: string): unknown[] {
  const out: unknown[] = [];
  if (ArrayIsArray(value)) {
    for (let i = 0; i < value.length; i++) ArrayPrototypePush(out, value[i]);
    return out;
  }
  const method = (value as { [SymbolIterator]?: unknown })[SymbolIterator];
  if (typeof method !== 'function') throw new TypeError(`${what} must be iterable`);
  const iterator = ReflectApply(method as () => Iterator<unknown>, value, []) as Iterator<unknown>;
  for (;;) {
    const step = iterator.next();
    if (step.done) return out;
    ArrayPrototypePush(out, step.value);
  }
}

export type HeadersInit = Headers | Array<[string, string]> | Record<string, string>;

/** Makes headers immutable (a fetched response's). */
export let freezeHeaders: (headers: Headers) => void;
/** The headers as a plain record of combined values (what the host takes). */
export let headerRecord: (headers: Headers) => Record<string, string>;

export class Headers {
  readonly #values = new SafeMap<string, string[]>();
  #immutable = false;

  constructor(init?: HeadersInit) {
    if (init === undefined || init === null) return;
    if (typeof init === 'object' && #values in init) {
      MapPrototypeForEach(init.#values, (values: string[], name: string) => {
        const copy: string[] = [];
        for (let i = 0; i < values.length; i++) ArrayPrototypePush(copy, values[i]);
        MapPrototypeSet(this.#values, name, copy);
      });
      return;
    }
    if (typeof init !== 'object') throw new TypeError('Headers: init must be a Headers, an array of [name, value] pairs or a record of strings');
    if (typeof (init as { [SymbolIterator]?: unknown })[SymbolIterator] === 'function') {
      const pairs = listOf(init, 'Headers init');
      for (let i = 0; i < pairs.length; i++) {
        const pair = pairs[i];
        const items = typeof pair === 'object' && pair !== null ? listOf(pair, 'a Headers pair') : [];
        if (items.length !== 2) throw new TypeError('Headers: each pair must have exactly a name and a value');
        this.#add(items[0], items[1]);
      }
      return;
    }
    const names = ObjectKeys(init);
    for (let i = 0; i < names.length; i++) this.#add(names[i], (init as Record<string, unknown>)[names[i]]);
  }

  #add(name: unknown, value: unknown): void {
    const key = nameOf(name);
    const text = valueOf(value);
    const list = MapPrototypeGet(this.#values, key);
    if (list === undefined) MapPrototypeSet(this.#values, key, [text]);
    else ArrayPrototypePush(list, text);
  }

  #writable(): void {
    if (this.#immutable) throw new TypeError('Headers: these headers are immutable (a fetched response); copy them with new Headers(...)');
  }

  append(name: string, value: string): void {
    this.#writable();
    this.#add(name, value);
  }
  set(name: string, value: string): void {
    this.#writable();
    MapPrototypeSet(this.#values, nameOf(name), [valueOf(value)]);
  }
  delete(name: string): void {
    this.#writable();
    MapPrototypeDelete(this.#values, nameOf(name));
  }
  get(name: string): string | null {
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
    return MapPrototypeHas(this.#values, nameOf(name));
  }
  #sorted(): Array<[string, string]> {
    const names: string[] = [];
    MapPrototypeForEach(this.#values, (_values: string[], name: string) => ArrayPrototypePush(names, name));
    ArrayPrototypeSort(names, (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0));
    const out: Array<[string, string]> = [];
    for (let i = 0; i < names.length; i++) ArrayPrototypePush(out, [names[i], this.#combined(names[i])!]);
    return out;
  }
  entries(): IterableIterator<[string, string]> {
    return iterate(this.#sorted());
  }
  keys(): IterableIterator<string> {
    const pairs = this.#sorted();
    const out: string[] = [];
    for (let i = 0; i < pairs.length; i++) ArrayPrototypePush(out, pairs[i][0]);
    return iterate(out);
  }
  values(): IterableIterator<string> {
    const pairs = this.#sorted();
    const out: string[] = [];
    for (let i = 0; i < pairs.length; i++) ArrayPrototypePush(out, pairs[i][1]);
    return iterate(out);
  }
  forEach(callback: (value: string, name: string, headers: Headers) => void, thisArg?: unknown): void {
    const pairs = this.#sorted();
    for (let i = 0; i < pairs.length; i++) ReflectApply(callback, thisArg, [pairs[i][1], pairs[i][0], this]);
  }
  [SymbolIterator](): IterableIterator<[string, string]> {
    return iterate(this.#sorted());
  }
  get [Symbol.toStringTag](): string {
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
  }
}

