// URL and URLSearchParams. Parsing follows the WHATWG rules by asking the runner's own
// URL implementation (a synchronous native call), so there is no second parser to drift.
import { native } from './native';
import {
  ArrayIsArray,
  arrayCopy,
  arrayFilter,
  arrayFindIndex,
  arrayMap,
  ArrayPrototypeJoin,
  ArrayPrototypePush,
  ArrayPrototypeSort,
  JSONParse,
  ObjectKeys,
  own,
  String_,
  StringPrototypeIndexOf,
  StringPrototypeSlice,
  StringPrototypeStartsWith,
  StringPrototypeEndsWith,
  stringReplaceAll,
  stringSplit,
  uncurryThis,
} from './primordials';

const ArrayPrototypeValues = uncurryThis(Array.prototype[Symbol.iterator]) as <T>(list: T[]) => IterableIterator<T>;
const PERCENT_20 = /%20/g;
const PLUS = /\+/g;

interface UrlParts {
  href: string;
  origin: string;
  protocol: string;
  username: string;
  password: string;
  host: string;
  hostname: string;
  port: string;
  pathname: string;
  search: string;
  hash: string;
}

function parseUrl(input: string, base?: string): UrlParts {
  const text = native.url(input, base ?? null);
  const reply: unknown = typeof text === 'string' ? JSONParse(text) : null;
  if (own(reply, 'ok') !== true) throw new TypeError(typeof own(reply, 'message') === 'string' ? own(reply, 'message') : `Invalid URL: ${input}`);
  return own(reply, 'parts') as UrlParts;
}

export class URLSearchParams {
  #pairs: Array<[string, string]> = [];
  #onChange: (() => void) | null = null;

  constructor(init?: string | Record<string, string> | Iterable<[string, string]> | URLSearchParams) {
    if (init === undefined || init === null) return;
    if (typeof init === 'string') this.#parse(init);
    else if (URLSearchParams.#isParams(init)) this.#pairs = arrayCopy(init.#pairs);
    else if (ArrayIsArray(init)) {
      // The common case, read by index (no iterator of the program's to run).
      const list = init as unknown as ArrayLike<ArrayLike<unknown>>;
      for (let i = 0; i < list.length; i++) ArrayPrototypePush(this.#pairs, [String_(list[i][0]), String_(list[i][1])]);
    } else if (typeof (init as Iterable<[string, string]>)[Symbol.iterator] === 'function') {
      // The program's own iterable: consuming it is what the constructor is for.
      for (const pair of init as Iterable<[string, string]>) ArrayPrototypePush(this.#pairs, [String_(pair[0]), String_(pair[1])]);
    } else {
      const keys = ObjectKeys(init);
      for (let i = 0; i < keys.length; i++) ArrayPrototypePush(this.#pairs, [keys[i], String_((init as Record<string, string>)[keys[i]])]);
    }
  }

  static #isParams(value: unknown): value is URLSearchParams {
    return typeof value === 'object' && value !== null && #pairs in value;
  }

  /** @internal used by URL to keep `search` in sync. */
  static attach(params: URLSearchParams, query: string, onChange: () => void): void {
    params.#pairs = [];
    params.#parse(query);
    params.#onChange = onChange;
  }

  #parse(query: string): void {
    const text = StringPrototypeStartsWith(query, '?') ? StringPrototypeSlice(query, 1) : query;
    const parts = stringSplit(text, '&');
    const decode = (s: string) => {
      try {
        return decodeURIComponent(stringReplaceAll(s, PLUS, () => ' '));
      } catch {
        return s;
      }
    };
    for (let i = 0; i < parts.length; i++) {
      const part = parts[i];
      if (part === '') continue;
      const eq = StringPrototypeIndexOf(part, '=');
      ArrayPrototypePush(this.#pairs, eq === -1 ? [decode(part), ''] : [decode(StringPrototypeSlice(part, 0, eq)), decode(StringPrototypeSlice(part, eq + 1))]);
    }
  }

  #changed(): void {
    this.#onChange?.();
  }
  get size(): number {
    return this.#pairs.length;
  }
  append(name: string, value: string): void {
    ArrayPrototypePush(this.#pairs, [String_(name), String_(value)]);
    this.#changed();
  }
  delete(name: string): void {
    const key = String_(name);
    this.#pairs = arrayFilter(this.#pairs, (pair) => pair[0] !== key);
    this.#changed();
  }
  get(name: string): string | null {
    const key = String_(name);
    const index = arrayFindIndex(this.#pairs, (pair) => pair[0] === key);
    return index === -1 ? null : this.#pairs[index][1];
  }
  getAll(name: string): string[] {
    const key = String_(name);
    return arrayMap(arrayFilter(this.#pairs, (pair) => pair[0] === key), (pair) => pair[1]);
  }
  has(name: string): boolean {
    const key = String_(name);
    return arrayFindIndex(this.#pairs, (pair) => pair[0] === key) !== -1;
  }
  set(name: string, value: string): void {
    const key = String_(name);
    const index = arrayFindIndex(this.#pairs, (pair) => pair[0] === key);
    if (index === -1) ArrayPrototypePush(this.#pairs, [key, String_(value)]);
    else {
      this.#pairs[index] = [key, String_(value)];
      this.#pairs = arrayFilter(this.#pairs, (pair, i) => pair[0] !== key || i === index);
    }
    this.#changed();
  }
  sort(): void {
    ArrayPrototypeSort(this.#pairs, (a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
    this.#changed();
  }
  forEach(callback: (value: string, key: string, parent: URLSearchParams) => void): void {
    const pairs = arrayCopy(this.#pairs);
    for (let i = 0; i < pairs.length; i++) callback(pairs[i][1], pairs[i][0], this);
  }
  keys(): IterableIterator<string> {
    return ArrayPrototypeValues(arrayMap(this.#pairs, (pair) => pair[0]));
  }
  values(): IterableIterator<string> {
    return ArrayPrototypeValues(arrayMap(this.#pairs, (pair) => pair[1]));
  }
  entries(): IterableIterator<[string, string]> {
    return ArrayPrototypeValues(arrayMap(this.#pairs, (pair) => [pair[0], pair[1]] as [string, string]));
  }
  [Symbol.iterator](): IterableIterator<[string, string]> {
    return this.entries();
  }
  toString(): string {
    const encode = (s: string) => stringReplaceAll(encodeURIComponent(s), PERCENT_20, () => '+');
    return ArrayPrototypeJoin(arrayMap(this.#pairs, (pair) => `${encode(pair[0])}=${encode(pair[1])}`), '&');
  }
}

export class URL {
  #parts: UrlParts;
  #params: URLSearchParams;

  constructor(input: string | URL, base?: string | URL) {
    this.#parts = parseUrl(String_(input), base === undefined ? undefined : String_(base));
    this.#params = new URLSearchParams();
    URLSearchParams.attach(this.#params, this.#parts.search, () => {
      const query = this.#params.toString();
      this.#reparse({ search: query ? `?${query}` : '' }, false);
    });
  }

  static canParse(input: string, base?: string): boolean {
    try {
      parseUrl(String_(input), base === undefined ? undefined : String_(base));
      return true;
    } catch {
      return false;
    }
  }

  #reparse(change: Partial<UrlParts>, syncParams = true): void {
    const p = { ...this.#parts, ...change };
    const auth = p.username || p.password ? `${p.username}${p.password ? `:${p.password}` : ''}@` : '';
    const host = change.hostname !== undefined || change.port !== undefined ? `${p.hostname}${p.port ? `:${p.port}` : ''}` : p.host;
    const search = p.search && !StringPrototypeStartsWith(p.search, '?') ? `?${p.search}` : p.search;
    const hash = p.hash && !StringPrototypeStartsWith(p.hash, '#') ? `#${p.hash}` : p.hash;
    const protocol = StringPrototypeEndsWith(p.protocol, ':') ? p.protocol : `${p.protocol}:`;
    const href = change.href ?? `${protocol}//${auth}${host}${p.pathname}${search}${hash}`;
    this.#parts = parseUrl(href);
    if (syncParams) URLSearchParams.attach(this.#params, this.#parts.search, () => this.#reparse({ search: this.#params.toString() ? `?${this.#params.toString()}` : '' }, false));
  }

  get href() { return this.#parts.href; }
  set href(v: string) { this.#reparse({ href: String_(v) }); }
  get origin() { return this.#parts.origin; }
  get protocol() { return this.#parts.protocol; }
  set protocol(v: string) { this.#reparse({ protocol: String_(v) }); }
  get username() { return this.#parts.username; }
  set username(v: string) { this.#reparse({ username: String_(v) }); }
  get password() { return this.#parts.password; }
  set password(v: string) { this.#reparse({ password: String_(v) }); }
  get host() { return this.#parts.host; }
  set host(v: string) { this.#reparse({ host: String_(v) }); }
  get hostname() { return this.#parts.hostname; }
  set hostname(v: string) { this.#reparse({ hostname: String_(v) }); }
  get port() { return this.#parts.port; }
  set port(v: string) { this.#reparse({ port: String_(v) }); }
  get pathname() { return this.#parts.pathname; }
  set pathname(v: string) { const text = String_(v); this.#reparse({ pathname: StringPrototypeStartsWith(text, '/') ? text : `/${text}` }); }
  get search() { return this.#parts.search; }
  set search(v: string) { this.#reparse({ search: String_(v) }); }
  get hash() { return this.#parts.hash; }
  set hash(v: string) { this.#reparse({ hash: String_(v) }); }
  get searchParams() { return this.#params; }
  toString() { return this.#parts.href; }
  toJSON() { return this.#parts.href; }
}
