// `svc:url`: component and query encoding, parsing and building URLs. Pure, ungated,
// implemented inside the isolate (its `URL` global parses; queries are Maps).
import type { HostModule } from '../types';

const guest = `function () {
  const encodeComponent = (s) => encodeURIComponent(String(s)).replace(/[!'()*]/g, (c) => "%" + c.charCodeAt(0).toString(16).toUpperCase());
  const decodeComponent = (s) => {
    try { return decodeURIComponent(String(s)); } catch (e) { throw new TypeError("url.decodeComponent: bad %HH escape or invalid UTF-8 in " + JSON.stringify(String(s))); }
  };
  const entries = (query) => query instanceof Map ? [...query.entries()] : Object.entries(query ?? {});
  const encodeQuery = (query) => entries(query).map(([k, v]) => encodeComponent(k) + "=" + encodeComponent(v)).join("&");
  const decodeQuery = (s) => {
    const out = new Map();
    for (const part of String(s).replace(/^\\?/, "").split("&")) {
      if (part === "") continue;
      const eq = part.indexOf("=");
      const k = eq === -1 ? part : part.slice(0, eq);
      const v = eq === -1 ? "" : part.slice(eq + 1);
      out.set(decodeComponent(k.replace(/\\+/g, " ")), decodeComponent(v.replace(/\\+/g, " ")));
    }
    return out;
  };
  return {
    encodeComponent,
    decodeComponent,
    encodeQuery,
    decodeQuery,
    parse(text) {
      const raw = String(text);
      if (!/^[A-Za-z][A-Za-z0-9+.-]*:/.test(raw)) throw new TypeError("url.parse: an absolute URL is required, got " + JSON.stringify(raw));
      let u;
      try { u = new URL(raw); } catch (e) { throw new TypeError("url.parse: malformed URL " + JSON.stringify(raw)); }
      const portMatch = /^[A-Za-z][A-Za-z0-9+.-]*:\\/\\/(?:[^@\\/?#]*@)?(?:\\[[^\\]]*\\]|[^:\\/?#]*):(\\d+)/.exec(raw);
      return Object.freeze({
        protocol: u.protocol.replace(/:$/, "").toLowerCase(),
        host: u.hostname.toLowerCase().replace(/\\.+$/, ""),
        port: portMatch ? Number(portMatch[1]) : undefined,
        path: u.pathname,
        query: u.search ? decodeQuery(u.search.slice(1)) : new Map(),
        fragment: u.hash ? u.hash.slice(1) : undefined,
      });
    },
    build(protocol, host, port, path, query, fragment) {
      if (/[\\/\\\\?#]/.test(String(host))) throw new TypeError("url.build: host must not contain /, \\\\, ? or #");
      if (String(path).split("/").some((s) => s === "." || s === "..")) throw new TypeError("url.build: path must not contain . or .. segments");
      const q = encodeQuery(query);
      return String(protocol) + "://" + String(host) + (port === undefined || port === null ? "" : ":" + port) + String(path) + (q ? "?" + q : "") + (fragment === undefined || fragment === null ? "" : "#" + encodeComponent(fragment));
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
