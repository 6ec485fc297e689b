// Guest side of `svc:url`, all of it: component and query coding, and parse/build over the
// prelude's URL parser.
import type { GuestCall, GuestPrimordials } from '../guest-contract';

export default function urlGuest(_call: GuestCall, P: GuestPrimordials): object {
  const RESERVED = /[!'()*]/g;
  const PLUS = /\+/g;
  const SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*:/;
  const PORT = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/(?:[^@\/?#]*@)?(?:\[[^\]]*\]|[^:\/?#]*):(\d+)/;
  const HOST_BREAK = /[\/\\?#]/;
  const TRAILING_DOTS = /\.+$/;
  const hex = (c: string) => '%' + P.StringPrototypeToUpperCase(P.NumberPrototypeToString(P.StringPrototypeCharCodeAt(c, 0), 16));
  const encodeComponent = (s: unknown) => P.stringReplaceAll(P.EncodeURIComponent(P.String_(s)), RESERVED, hex);
  const decodeComponent = (s: unknown) => {
    try {
      return P.DecodeURIComponent(P.String_(s));
    } catch {
      throw new P.TypeError_('url.decodeComponent: bad %HH escape or invalid UTF-8 in ' + P.jsonQuote(P.String_(s)));
    }
  };
  const encodeQuery = (query: unknown) => {
    const parts: string[] = [];
    const add = (v: unknown, k: unknown) => P.ArrayPrototypePush(parts, encodeComponent(k) + '=' + encodeComponent(v));
    if (P.isMap(query)) P.MapPrototypeForEach(query, add);
    else if (query !== null && query !== undefined) {
      const keys = P.ObjectKeys(query);
      for (let i = 0; i < keys.length; i++) add((query as Record<string, unknown>)[keys[i]], keys[i]);
    }
    return P.ArrayPrototypeJoin(parts, '&');
  };
  const decodeQuery = (s: unknown) => {
    const out = new P.Map_<string, string>();
    let text = P.String_(s);
    if (P.StringPrototypeStartsWith(text, '?')) text = P.StringPrototypeSlice(text, 1);
    const parts = P.stringSplit(text, '&');
    for (let i = 0; i < parts.length; i++) {
      const part = parts[i];
      if (part === '') continue;
      const eq = P.StringPrototypeIndexOf(part, '=');
      const k = eq === -1 ? part : P.StringPrototypeSlice(part, 0, eq);
      const v = eq === -1 ? '' : P.StringPrototypeSlice(part, eq + 1);
      P.MapPrototypeSet(out, decodeComponent(P.stringReplaceAll(k, PLUS, () => ' ')), decodeComponent(P.stringReplaceAll(v, PLUS, () => ' ')));
    }
    return out;
  };
  const stripTrailingDots = (text: string) => {
    const match = P.RegExpPrototypeExec(TRAILING_DOTS, text);
    return match === null ? text : P.StringPrototypeSlice(text, 0, match.index);
  };
  return {
    encodeComponent,
    decodeComponent,
    encodeQuery,
    decodeQuery,
    parse(text: unknown) {
      const raw = P.String_(text);
      if (!P.regExpTest(SCHEME, raw)) throw new P.TypeError_('url.parse: an absolute URL is required, got ' + P.jsonQuote(raw));
      let u: InstanceType<GuestPrimordials['URL']>;
      try {
        u = new P.URL(raw);
      } catch {
        throw new P.TypeError_('url.parse: malformed URL ' + P.jsonQuote(raw));
      }
      const portMatch = P.RegExpPrototypeExec(PORT, raw);
      const protocol = u.protocol;
      const search = u.search;
      const hash = u.hash;
      return P.ObjectFreeze({
        protocol: P.StringPrototypeToLowerCase(P.StringPrototypeEndsWith(protocol, ':') ? P.StringPrototypeSlice(protocol, 0, -1) : protocol),
        host: stripTrailingDots(P.StringPrototypeToLowerCase(u.hostname)),
        port: portMatch ? +portMatch[1] : undefined,
        path: u.pathname,
        query: search ? decodeQuery(P.StringPrototypeSlice(search, 1)) : new P.Map_(),
        fragment: hash ? P.StringPrototypeSlice(hash, 1) : undefined,
      });
    },
    build(protocol: unknown, host: unknown, port: unknown, path: unknown, query: unknown, fragment: unknown) {
      if (P.regExpTest(HOST_BREAK, P.String_(host))) throw new P.TypeError_('url.build: host must not contain /, \\, ? or #');
      const segments = P.stringSplit(P.String_(path), '/');
      for (let i = 0; i < segments.length; i++) if (segments[i] === '.' || segments[i] === '..') throw new P.TypeError_('url.build: path must not contain . or .. segments');
      const q = encodeQuery(query);
      return P.String_(protocol) + '://' + P.String_(host) + (port === undefined || port === null ? '' : ':' + P.String_(port)) + P.String_(path) + (q ? '?' + q : '') + (fragment === undefined || fragment === null ? '' : '#' + encodeComponent(fragment));
    },
  };
}
