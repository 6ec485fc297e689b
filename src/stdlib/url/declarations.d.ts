declare module "svc:url" {
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
