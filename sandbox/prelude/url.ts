// URL and URLSearchParams per the WHATWG URL standard. Parsing and every URL setter are
// done by the runner's own URL implementation (a synchronous native call: the setter's
// name and value go with the current href), so there is no second parser to drift and the
// setters follow the standard's state overrides (C0/tab/newline stripping included).
// URLSearchParams (application/x-www-form-urlencoded parsing and serialising) is here,
// on the primordials: trusted guest code (svc:url, fetch bodies) uses these classes.
//
// The module is evaluated the first time something needs it (a lazy group, ./web/url-group.ts
// `urlGroup`, through ./web/url-globals.ts): a program reading either global, svc:url's
// guest code, or the web platform.
// That may be after the program changed any built-in or global, so its body reads only
// captured intrinsics, and everyone who uses the classes gets them from the group, never
// from the global object (which the program may have replaced).
import { native } from './native';
import { utf8Decode, utf8Encode } from './encoding';
import {
  ArrayIsArray,
  arrayCopy,
  arrayFilter,
  ArrayPrototypeJoin,
  ArrayPrototypePush,
  ArrayPrototypeSort,
  IteratorPrototype,
  JSONParse,
  ObjectDefineProperty,
  ObjectGetOwnPropertyDescriptor,
  ObjectSetPrototypeOf,
  own,
  ReflectApply,
  ReflectOwnKeys,
  regExpTest,
  String_,
  StringFromCharCode,
  StringPrototypeCharCodeAt,
  StringPrototypeIndexOf,
  StringPrototypeSlice,
  SymbolToStringTag,
  TypeError_,
  TypedArrayPrototypeGetBuffer,
  TypedArrayPrototypeGetLength,
  Uint8Array_,
} from './primordials';
import { SymbolIterator } from './web/primordials';
import { interfaceName } from './idl';

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

type Setter = 'href' | 'protocol' | 'username' | 'password' | 'host' | 'hostname' | 'port' | 'pathname' | 'search' | 'hash';

/** Parses `input` (against `base`), then applies `setter = value` when given. Null: failure. */
function parseUrl(input: string, base: string | null, setter?: Setter, value?: string): UrlParts | null {
  const text = setter === undefined ? native.url(input, base) : native.url(input, base, setter, value);
  const reply: unknown = typeof text === 'string' ? JSONParse(text) : null;
  return own(reply, 'ok') === true ? (own(reply, 'parts') as UrlParts) : null;
}

const LONE_SURROGATE = /[\uD800-\uDFFF]/;

/** WebIDL's USVString: the string, with each lone surrogate replaced by U+FFFD. */
export function toUSVString(value: unknown): string {
  const text = String_(value);
  if (!regExpTest(LONE_SURROGATE, text)) return text;
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const code = StringPrototypeCharCodeAt(text, i);
    if (code >= 0xd800 && code <= 0xdbff && i + 1 < text.length) {
      const next = StringPrototypeCharCodeAt(text, i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        out += StringFromCharCode(code, next);
        i++;
        continue;
      }
    }
    out += code >= 0xd800 && code <= 0xdfff ? '\uFFFD' : StringFromCharCode(code);
  }
  return out;
}

function hexValue(code: number): number {
  if (code >= 0x30 && code <= 0x39) return code - 0x30;
  if (code >= 0x41 && code <= 0x46) return code - 0x37;
  if (code >= 0x61 && code <= 0x66) return code - 0x57;
  return -1;
}

/** One name or value of a form-urlencoded string: '+' is a space, %XX a byte, then UTF-8 (with U+FFFD). */
function formDecode(text: string): string {
  const bytes = utf8Encode(text);
  const length = TypedArrayPrototypeGetLength(bytes);
  const out = new Uint8Array_(length);
  let at = 0;
  for (let i = 0; i < length; i++) {
    const byte = bytes[i];
    if (byte === 0x2b) out[at++] = 0x20;
    else if (byte === 0x25 && i + 2 < length && hexValue(bytes[i + 1]) >= 0 && hexValue(bytes[i + 2]) >= 0) {
      out[at++] = hexValue(bytes[i + 1]) * 16 + hexValue(bytes[i + 2]);
      i += 2;
    } else out[at++] = byte;
  }
  return utf8Decode(new Uint8Array_(TypedArrayPrototypeGetBuffer(out), 0, at));
}

const HEX = '0123456789ABCDEF';

/** The form-urlencoded serialisation of one name or value. */
function formEncode(text: string): string {
  const bytes = utf8Encode(text);
  const length = TypedArrayPrototypeGetLength(bytes);
  let out = '';
  for (let i = 0; i < length; i++) {
    const b = bytes[i];
    if (b === 0x20) out += '+';
    else if (b === 0x2a || b === 0x2d || b === 0x2e || b === 0x5f || (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5a) || (b >= 0x61 && b <= 0x7a)) out += StringFromCharCode(b);
    else out += `%${HEX[b >> 4]}${HEX[b & 15]}`;
  }
  return out;
}

/** The name-value list of a form-urlencoded string. */
function parseForm(text: string): Array<[string, string]> {
  const pairs: Array<[string, string]> = [];
  let start = 0;
  while (start <= text.length) {
    let end = StringPrototypeIndexOf(text, '&', start);
    if (end === -1) end = text.length;
    if (end > start) {
      const part = StringPrototypeSlice(text, start, end);
      const eq = StringPrototypeIndexOf(part, '=');
      ArrayPrototypePush(pairs, eq === -1 ? [formDecode(part), ''] : [formDecode(StringPrototypeSlice(part, 0, eq)), formDecode(StringPrototypeSlice(part, eq + 1))]);
    }
    start = end + 1;
  }
  return pairs;
}

/** The items of a pair given to the URLSearchParams constructor (arrays read by index). */
function pairItems(pair: unknown): unknown[] {
  if (ArrayIsArray(pair)) return arrayCopy(pair as unknown[]);
  if (pair === null || (typeof pair !== 'object' && typeof pair !== 'function') || typeof (pair as Iterable<unknown>)[SymbolIterator] !== 'function') {
    throw new TypeError_('URLSearchParams: each pair must be a sequence of a name and a value');
  }
  const items: unknown[] = [];
  // The program's own iterable: consuming it is what the constructor is for.
  for (const item of pair as Iterable<unknown>) ArrayPrototypePush(items, item);
  return items;
}

// Reached only from this module (a static block hands them out), never from programs.
let pairsOf: (params: URLSearchParams) => Array<[string, string]>;
let isParams: (value: unknown) => value is URLSearchParams;

export class URLSearchParams {
  #pairs: Array<[string, string]> = [];
  #onChange: (() => void) | null = null;

  static {
    pairsOf = (params) => params.#pairs;
    isParams = (value): value is URLSearchParams => typeof value === 'object' && value !== null && #pairs in value;
  }

  constructor(init: unknown = '') {
    if (init !== null && (typeof init === 'object' || typeof init === 'function')) {
      if (isParams(init)) {
        this.#pairs = arrayCopy(init.#pairs);
      } else if (typeof (init as Iterable<unknown>)[SymbolIterator] === 'function') {
        const list: unknown[] = ArrayIsArray(init) ? (init as unknown[]) : [];
        if (!ArrayIsArray(init)) for (const pair of init as Iterable<unknown>) ArrayPrototypePush(list, pair);
        for (let i = 0; i < list.length; i++) {
          const items = pairItems(list[i]);
          if (items.length !== 2) throw new TypeError_(`URLSearchParams: pair ${i} has ${items.length} items; each pair is exactly a name and a value`);
          ArrayPrototypePush(this.#pairs, [toUSVString(items[0]), toUSVString(items[1])]);
        }
      } else {
        const keys = ReflectOwnKeys(init);
        for (let i = 0; i < keys.length; i++) {
          const key = keys[i];
          if (typeof key !== 'string') continue;
          const descriptor = ObjectGetOwnPropertyDescriptor(init, key);
          if (!descriptor || !descriptor.enumerable) continue;
          // A record: two keys that become the same USVString keep one entry, the later value.
          const name = toUSVString(key);
          const value = toUSVString((init as Record<string, unknown>)[key]);
          let at = -1;
          for (let k = 0; k < this.#pairs.length && at === -1; k++) if (this.#pairs[k][0] === name) at = k;
          if (at === -1) ArrayPrototypePush(this.#pairs, [name, value]);
          else this.#pairs[at] = [name, value];
        }
      }
      return;
    }
    const text = toUSVString(init);
    this.#pairs = parseForm(text[0] === '?' ? StringPrototypeSlice(text, 1) : text);
  }

  /** @internal URL keeps its query and its searchParams in step through this. */
  static attach(params: URLSearchParams, search: string, onChange: () => void): void {
    params.#pairs = parseForm(search[0] === '?' ? StringPrototypeSlice(search, 1) : search);
    params.#onChange = onChange;
  }

  #changed(): void {
    if (this.#onChange !== null) this.#onChange();
  }
  get size(): number {
    return this.#pairs.length;
  }
  append(name: string, value: string): void {
    if (arguments.length < 2) throw new TypeError_('URLSearchParams.append takes a name and a value');
    ArrayPrototypePush(this.#pairs, [toUSVString(name), toUSVString(value)]);
    this.#changed();
  }
  delete(name: string, value?: string): void {
    if (arguments.length < 1) throw new TypeError_('URLSearchParams.delete takes a name');
    const key = toUSVString(name);
    const only = value === undefined ? undefined : toUSVString(value);
    this.#pairs = arrayFilter(this.#pairs, (pair) => pair[0] !== key || (only !== undefined && pair[1] !== only));
    this.#changed();
  }
  get(name: string): string | null {
    if (arguments.length < 1) throw new TypeError_('URLSearchParams.get takes a name');
    const key = toUSVString(name);
    for (let i = 0; i < this.#pairs.length; i++) if (this.#pairs[i][0] === key) return this.#pairs[i][1];
    return null;
  }
  getAll(name: string): string[] {
    if (arguments.length < 1) throw new TypeError_('URLSearchParams.getAll takes a name');
    const key = toUSVString(name);
    const out: string[] = [];
    for (let i = 0; i < this.#pairs.length; i++) if (this.#pairs[i][0] === key) ArrayPrototypePush(out, this.#pairs[i][1]);
    return out;
  }
  has(name: string, value?: string): boolean {
    if (arguments.length < 1) throw new TypeError_('URLSearchParams.has takes a name');
    const key = toUSVString(name);
    const only = value === undefined ? undefined : toUSVString(value);
    for (let i = 0; i < this.#pairs.length; i++) if (this.#pairs[i][0] === key && (only === undefined || this.#pairs[i][1] === only)) return true;
    return false;
  }
  set(name: string, value: string): void {
    if (arguments.length < 2) throw new TypeError_('URLSearchParams.set takes a name and a value');
    const key = toUSVString(name);
    const text = toUSVString(value);
    let first = -1;
    for (let i = 0; i < this.#pairs.length && first === -1; i++) if (this.#pairs[i][0] === key) first = i;
    if (first === -1) ArrayPrototypePush(this.#pairs, [key, text]);
    else {
      this.#pairs[first] = [key, text];
      this.#pairs = arrayFilter(this.#pairs, (pair, i) => pair[0] !== key || i === first);
    }
    this.#changed();
  }
  sort(): void {
    // Stable, by UTF-16 code units, as the standard says.
    ArrayPrototypeSort(this.#pairs, (a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
    this.#changed();
  }
  forEach(callback: (value: string, key: string, parent: URLSearchParams) => void, thisArg?: unknown): void {
    if (typeof callback !== 'function') throw new TypeError_('URLSearchParams.forEach takes a function');
    // Live, as WebIDL's iterable: pairs removed or added during the loop are seen so.
    for (let i = 0; i < this.#pairs.length; i++) {
      const pair = this.#pairs[i];
      ReflectApply(callback, thisArg, [pair[1], pair[0], this]);
    }
  }
  keys(): IterableIterator<string> {
    return makeIterator(this, 'keys') as IterableIterator<string>;
  }
  values(): IterableIterator<string> {
    return makeIterator(this, 'values') as IterableIterator<string>;
  }
  entries(): IterableIterator<[string, string]> {
    return makeIterator(this, 'entries') as IterableIterator<[string, string]>;
  }
  [SymbolIterator](): IterableIterator<[string, string]> {
    return makeIterator(this, 'entries') as IterableIterator<[string, string]>;
  }
  toString(): string {
    const parts: string[] = [];
    for (let i = 0; i < this.#pairs.length; i++) ArrayPrototypePush(parts, `${formEncode(this.#pairs[i][0])}=${formEncode(this.#pairs[i][1])}`);
    return ArrayPrototypeJoin(parts, '&');
  }
}

/** WebIDL's pair iterator: live over the list, inheriting %IteratorPrototype%. */
type Kind = 'keys' | 'values' | 'entries';
let makeIterator: (params: URLSearchParams, kind: Kind) => object;

class URLSearchParamsIterator {
  #params: URLSearchParams;
  #kind: Kind;
  #index = 0;
  static {
    makeIterator = (params, kind) => new URLSearchParamsIterator(params, kind);
  }
  private constructor(params: URLSearchParams, kind: Kind) {
    this.#params = params;
    this.#kind = kind;
  }
  next(): IteratorResult<unknown> {
    const pairs = pairsOf(this.#params);
    if (this.#index >= pairs.length) return { value: undefined, done: true };
    const pair = pairs[this.#index++];
    return { value: this.#kind === 'keys' ? pair[0] : this.#kind === 'values' ? pair[1] : [pair[0], pair[1]], done: false };
  }
}
ObjectSetPrototypeOf(URLSearchParamsIterator.prototype, IteratorPrototype);
ObjectDefineProperty(URLSearchParamsIterator.prototype, SymbolToStringTag, { value: 'URLSearchParams Iterator', configurable: true });
interfaceName(URLSearchParams, 'URLSearchParams');

function optionalBase(base: unknown): string | null {
  return base === undefined ? null : toUSVString(base);
}

export class URL {
  #parts: UrlParts;
  #params: URLSearchParams;

  constructor(url: string | URL, base?: string | URL) {
    if (arguments.length < 1) throw new TypeError_('URL: the url argument is required');
    const input = toUSVString(url);
    const parts = parseUrl(input, optionalBase(base));
    if (parts === null) throw new TypeError_(`Invalid URL: ${input}`);
    this.#parts = parts;
    this.#params = new URLSearchParams();
    this.#attachParams();
  }

  /** The URL, or null where the constructor would throw. */
  static parse(url: string | URL, base?: string | URL): URL | null {
    if (arguments.length < 1) throw new TypeError_('URL.parse: the url argument is required');
    try {
      return construct(url, base);
    } catch {
      return null;
    }
  }

  static canParse(url: string | URL, base?: string | URL): boolean {
    if (arguments.length < 1) throw new TypeError_('URL.canParse: the url argument is required');
    return parseUrl(toUSVString(url), optionalBase(base)) !== null;
  }

  #attachParams(): void {
    URLSearchParams.attach(this.#params, this.#parts.search, () => {
      const query = this.#params.toString();
      const parts = parseUrl(this.#parts.href, null, 'search', query);
      // An empty list leaves no query at all: the search setter given "" removes the "?".
      if (parts !== null) this.#parts = parts;
    });
  }

  /** Applies one setter; a value the setter rejects leaves the URL unchanged (href throws). */
  #set(setter: Setter, value: unknown): void {
    const text = toUSVString(value);
    const parts = parseUrl(this.#parts.href, null, setter, text);
    if (parts === null) {
      if (setter === 'href') throw new TypeError_(`Invalid URL: ${text}`);
      return;
    }
    this.#parts = parts;
    if (setter === 'href' || setter === 'search') this.#attachParams();
  }

  get href() { return this.#parts.href; }
  set href(v: string) { this.#set('href', v); }
  get origin() { return this.#parts.origin; }
  get protocol() { return this.#parts.protocol; }
  set protocol(v: string) { this.#set('protocol', v); }
  get username() { return this.#parts.username; }
  set username(v: string) { this.#set('username', v); }
  get password() { return this.#parts.password; }
  set password(v: string) { this.#set('password', v); }
  get host() { return this.#parts.host; }
  set host(v: string) { this.#set('host', v); }
  get hostname() { return this.#parts.hostname; }
  set hostname(v: string) { this.#set('hostname', v); }
  get port() { return this.#parts.port; }
  set port(v: string) { this.#set('port', v); }
  get pathname() { return this.#parts.pathname; }
  set pathname(v: string) { this.#set('pathname', v); }
  get search() { return this.#parts.search; }
  set search(v: string) { this.#set('search', v); }
  get hash() { return this.#parts.hash; }
  set hash(v: string) { this.#set('hash', v); }
  get searchParams() { return this.#params; }
  toString() { return this.#parts.href; }
  toJSON() { return this.#parts.href; }
}
/** `new URL(...)` from outside the class body: a class that names itself is renamed by the bundler (`_URL` in .name and String()). */
function construct(url: string | URL, base?: string | URL): URL {
  return new URL(url, base);
}
interfaceName(URL, 'URL');