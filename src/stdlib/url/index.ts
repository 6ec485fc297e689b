// `svc:url`: component and query encoding, parsing and building URLs. Pure, ungated,
// implemented inside the isolate (its `URL` global parses; queries are Maps).
import type { HostModule } from '../types';

// Trusted guest code: it runs on the primordials `P` only (see src/stdlib/types.ts).
const guest = `function (call, P) {
  const RESERVED = /[!'()*]/g;
  const PLUS = /\\+/g;
  const SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*:/;
  const PORT = /^[A-Za-z][A-Za-z0-9+.-]*:\\/\\/(?:[^@\\/?#]*@)?(?:\\[[^\\]]*\\]|[^:\\/?#]*):(\\d+)/;
  const HOST_BREAK = /[\\/\\\\?#]/;
  const TRAILING_DOTS = /\\.+$/;
  const hex = (c) => "%" + P.StringPrototypeToUpperCase(P.NumberPrototypeToString(P.StringPrototypeCharCodeAt(c, 0), 16));
  const encodeComponent = (s) => P.stringReplaceAll(P.EncodeURIComponent(P.String_(s)), RESERVED, hex);
  const decodeComponent = (s) => {
    try { return P.DecodeURIComponent(P.String_(s)); } catch (e) { throw new P.TypeError_("url.decodeComponent: bad %HH escape or invalid UTF-8 in " + P.jsonQuote(P.String_(s))); }
  };
  const encodeQuery = (query) => {
    const parts = [];
    const add = (v, k) => P.ArrayPrototypePush(parts, encodeComponent(k) + "=" + encodeComponent(v));
    if (P.isMap(query)) P.MapPrototypeForEach(query, add);
    else if (query !== null && query !== undefined) {
      const keys = P.ObjectKeys(query);
      for (let i = 0; i < keys.length; i++) add(query[keys[i]], keys[i]);
    }
    return P.ArrayPrototypeJoin(parts, "&");
  };
  const decodeQuery = (s) => {
    const out = new P.Map_();
    let text = P.String_(s);
    if (P.StringPrototypeStartsWith(text, "?")) text = P.StringPrototypeSlice(text, 1);
    const parts = P.stringSplit(text, "&");
    for (let i = 0; i < parts.length; i++) {
      const part = parts[i];
      if (part === "") continue;
      const eq = P.StringPrototypeIndexOf(part, "=");
      const k = eq === -1 ? part : P.StringPrototypeSlice(part, 0, eq);
      const v = eq === -1 ? "" : P.StringPrototypeSlice(part, eq + 1);
      P.MapPrototypeSet(out, decodeComponent(P.stringReplaceAll(k, PLUS, () => " ")), decodeComponent(P.stringReplaceAll(v, PLUS, () => " ")));
    }
    return out;
  };
  const stripTrailingDots = (text) => {
    const match = P.RegExpPrototypeExec(TRAILING_DOTS, text);
    return match === null ? text : P.StringPrototypeSlice(text, 0, match.index);
  };
  return {
    encodeComponent,
    decodeComponent,
    encodeQuery,
    decodeQuery,
    parse(text) {
      const raw = P.String_(text);
      if (!P.regExpTest(SCHEME, raw)) throw new P.TypeError_("url.parse: an absolute URL is required, got " + P.jsonQuote(raw));
      let u;
      try { u = new P.URL(raw); } catch (e) { throw new P.TypeError_("url.parse: malformed URL " + P.jsonQuote(raw)); }
      const portMatch = P.RegExpPrototypeExec(PORT, raw);
      const protocol = u.protocol;
      const search = u.search;
      const hash = u.hash;
      return P.ObjectFreeze({
        protocol: P.StringPrototypeToLowerCase(P.StringPrototypeEndsWith(protocol, ":") ? P.StringPrototypeSlice(protocol, 0, -1) : protocol),
        host: stripTrailingDots(P.StringPrototypeToLowerCase(u.hostname)),
        port: portMatch ? +portMatch[1] : undefined,
        path: u.pathname,
        query: search ? decodeQuery(P.StringPrototypeSlice(search, 1)) : new P.Map_(),
        fragment: hash ? P.StringPrototypeSlice(hash, 1) : undefined,
      });
    },
    build(protocol, host, port, path, query, fragment) {
      if (P.regExpTest(HOST_BREAK, P.String_(host))) throw new P.TypeError_("url.build: host must not contain /, \\\\, ? or #");
      const segments = P.stringSplit(P.String_(path), "/");
      for (let i = 0; i < segments.length; i++) if (segments[i] === "." || segments[i] === "..") throw new P.TypeError_("url.build: path must not contain . or .. segments");
      const q = encodeQuery(query);
      return P.String_(protocol) + "://" + P.String_(host) + (port === undefined || port === null ? "" : ":" + P.String_(port)) + P.String_(path) + (q ? "?" + q : "") + (fragment === undefined || fragment === null ? "" : "#" + encodeComponent(fragment));
    },
  };
}`;

export const urlModule: HostModule = {
  name: 'svc:url',
  description: 'URL helpers: encode and decode components and queries, parse and build URLs',
  declarations: `declare module "svc:url" {
  export type Query = Map<string, string>;
  /** RFC 3986: escapes everything except A-Z a-z 0-9 - . _ ~ */
  export function encodeComponent(s: string): string;
  /** Throws TypeError on a bad %HH escape or invalid UTF-8. */
  export function decodeComponent(s: string): string;
  /** k=v&k=v in insertion order. */
  export function encodeQuery(query: Query | Record<string, string>): string;
  /** No leading "?"; "+" decodes to a space; the last duplicate wins. */
  export function decodeQuery(s: string): Query;
  /** Absolute URLs only; TypeError when malformed. */
  export function parse(url: string): URL;
  export function build(protocol: string, host: string, port: number | undefined, path: string, query: Query | Record<string, string>, fragment?: string): string;
  export interface URL {
    readonly protocol: string;
    readonly host: string;
    readonly port: number | undefined;
    readonly path: string;
    readonly query: Query;
    readonly fragment: string | undefined;
  }
}
`,
  operations: {},
  guest,
};
