// URL and URLSearchParams. Parsing follows the WHATWG rules by asking the runner's own
// URL implementation (a synchronous native call), so there is no second parser to drift.
import { jsonParse } from './intrinsics';
import { native } from './native';

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
  const reply = jsonParse(native.url.applySync(undefined, [input, base ?? null]) as string) as { ok: boolean; parts?: UrlParts; message?: string };
  if (!reply.ok) throw new TypeError(reply.message ?? `Invalid URL: ${input}`);
  return reply.parts!;
}

export class URLSearchParams {
  #pairs: Array<[string, string]> = [];
  #onChange: (() => void) | null = null;

  constructor(init?: string | Record<string, string> | Iterable<[string, string]> | URLSearchParams) {
    if (init === undefined || init === null) return;
    if (typeof init === 'string') this.#parse(init);
    else if (init instanceof URLSearchParams) this.#pairs = [...init.#pairs];
    else if (typeof (init as Iterable<[string, string]>)[Symbol.iterator] === 'function') {
      for (const pair of init as Iterable<[string, string]>) this.#pairs.push([String(pair[0]), String(pair[1])]);
    } else for (const key of Object.keys(init)) this.#pairs.push([key, String((init as Record<string, string>)[key])]);
  }

  /** @internal used by URL to keep `search` in sync. */
  static attach(params: URLSearchParams, query: string, onChange: () => void): void {
    params.#pairs = [];
    params.#parse(query);
    params.#onChange = onChange;
  }

  #parse(query: string): void {
    const text = query.startsWith('?') ? query.slice(1) : query;
    for (const part of text.split('&')) {
      if (part === '') continue;
      const eq = part.indexOf('=');
      const decode = (s: string) => {
        try {
          return decodeURIComponent(s.replace(/\+/g, ' '));
        } catch {
          return s;
        }
      };
      this.#pairs.push(eq === -1 ? [decode(part), ''] : [decode(part.slice(0, eq)), decode(part.slice(eq + 1))]);
    }
  }

  #changed(): void {
    this.#onChange?.();
  }
  get size(): number {
    return this.#pairs.length;
  }
  append(name: string, value: string): void {
    this.#pairs.push([String(name), String(value)]);
    this.#changed();
  }
  delete(name: string): void {
    this.#pairs = this.#pairs.filter(([k]) => k !== String(name));
    this.#changed();
  }
  get(name: string): string | null {
    return this.#pairs.find(([k]) => k === String(name))?.[1] ?? null;
  }
  getAll(name: string): string[] {
    return this.#pairs.filter(([k]) => k === String(name)).map(([, v]) => v);
  }
  has(name: string): boolean {
    return this.#pairs.some(([k]) => k === String(name));
  }
  set(name: string, value: string): void {
    const key = String(name);
    const index = this.#pairs.findIndex(([k]) => k === key);
    if (index === -1) this.#pairs.push([key, String(value)]);
    else {
      this.#pairs[index] = [key, String(value)];
      this.#pairs = this.#pairs.filter(([k], i) => k !== key || i === index);
    }
    this.#changed();
  }
  sort(): void {
    this.#pairs.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    this.#changed();
  }
  forEach(callback: (value: string, key: string, parent: URLSearchParams) => void): void {
    for (const [k, v] of this.#pairs) callback(v, k, this);
  }
  keys(): IterableIterator<string> {
    return this.#pairs.map(([k]) => k)[Symbol.iterator]();
  }
  values(): IterableIterator<string> {
    return this.#pairs.map(([, v]) => v)[Symbol.iterator]();
  }
  entries(): IterableIterator<[string, string]> {
    return this.#pairs.map(([k, v]) => [k, v] as [string, string])[Symbol.iterator]();
  }
  [Symbol.iterator](): IterableIterator<[string, string]> {
    return this.entries();
  }
  toString(): string {
    const encode = (s: string) => encodeURIComponent(s).replace(/%20/g, '+');
    return this.#pairs.map(([k, v]) => `${encode(k)}=${encode(v)}`).join('&');
  }
}

export class URL {
  #parts: UrlParts;
  #params: URLSearchParams;

  constructor(input: string | URL, base?: string | URL) {
    this.#parts = parseUrl(String(input), base === undefined ? undefined : String(base));
    this.#params = new URLSearchParams();
    URLSearchParams.attach(this.#params, this.#parts.search, () => {
      const query = this.#params.toString();
      this.#reparse({ search: query ? `?${query}` : '' }, false);
    });
  }

  static canParse(input: string, base?: string): boolean {
    try {
      parseUrl(String(input), base === undefined ? undefined : String(base));
      return true;
    } catch {
      return false;
    }
  }

  #reparse(change: Partial<UrlParts>, syncParams = true): void {
    const p = { ...this.#parts, ...change };
    const auth = p.username || p.password ? `${p.username}${p.password ? `:${p.password}` : ''}@` : '';
    const host = change.hostname !== undefined || change.port !== undefined ? `${p.hostname}${p.port ? `:${p.port}` : ''}` : p.host;
    const search = p.search && !p.search.startsWith('?') ? `?${p.search}` : p.search;
    const hash = p.hash && !p.hash.startsWith('#') ? `#${p.hash}` : p.hash;
    const protocol = p.protocol.endsWith(':') ? p.protocol : `${p.protocol}:`;
    const href = change.href ?? `${protocol}//${auth}${host}${p.pathname}${search}${hash}`;
    this.#parts = parseUrl(href);
    if (syncParams) URLSearchParams.attach(this.#params, this.#parts.search, () => this.#reparse({ search: this.#params.toString() ? `?${this.#params.toString()}` : '' }, false));
  }

  get href() { return this.#parts.href; }
  set href(v: string) { this.#reparse({ href: String(v) }); }
  get origin() { return this.#parts.origin; }
  get protocol() { return this.#parts.protocol; }
  set protocol(v: string) { this.#reparse({ protocol: String(v) }); }
  get username() { return this.#parts.username; }
  set username(v: string) { this.#reparse({ username: String(v) }); }
  get password() { return this.#parts.password; }
  set password(v: string) { this.#reparse({ password: String(v) }); }
  get host() { return this.#parts.host; }
  set host(v: string) { this.#reparse({ host: String(v) }); }
  get hostname() { return this.#parts.hostname; }
  set hostname(v: string) { this.#reparse({ hostname: String(v) }); }
  get port() { return this.#parts.port; }
  set port(v: string) { this.#reparse({ port: String(v) }); }
  get pathname() { return this.#parts.pathname; }
  set pathname(v: string) { this.#reparse({ pathname: String(v).startsWith('/') ? String(v) : `/${v}` }); }
  get search() { return this.#parts.search; }
  set search(v: string) { this.#reparse({ search: String(v) }); }
  get hash() { return this.#parts.hash; }
  set hash(v: string) { this.#reparse({ hash: String(v) }); }
  get searchParams() { return this.#params; }
  toString() { return this.#parts.href; }
  toJSON() { return this.#parts.href; }
}
