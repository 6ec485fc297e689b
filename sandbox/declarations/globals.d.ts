// Declarations of the globals svc adds to V8's built-ins (program-runtime §3).
interface Console {
  log(...data: unknown[]): void;
  info(...data: unknown[]): void;
  warn(...data: unknown[]): void;
  error(...data: unknown[]): void;
  debug(...data: unknown[]): void;
}
declare var console: Console;
interface Crypto {
  /** Fills an integer typed array (at most 65,536 bytes) with secure random values. */
  getRandomValues<T extends ArrayBufferView>(array: T): T;
  /** A random v4 UUID. */
  randomUUID(): string;
}
declare var crypto: Crypto;
/** Throws `Error(message ?? "assertion failed")` when `condition` is falsy. */
declare function assert(condition: unknown, message?: string): asserts condition;
/** A gated operation was refused (by policy, a runtime invariant or a read-only volume). Denials are final: report them. */
declare class PermissionDeniedError extends Error {
  constructor(message?: string, caller?: string, capability?: string, reason?: string);
  readonly caller: string;
  readonly capability: string;
  readonly reason: string;
  readonly source: "policy" | "invariant" | "read_only";
}
/** A budget or size limit refused the operation; nothing was done. */
declare class QuotaExceededError extends Error {
  constructor(message?: string);
}
declare class URL {
  constructor(url: string | URL, base?: string | URL);
  static canParse(url: string, base?: string): boolean;
  href: string; readonly origin: string; protocol: string; username: string; password: string; host: string; hostname: string; port: string; pathname: string; search: string; readonly searchParams: URLSearchParams; hash: string;
  toString(): string;
  toJSON(): string;
}
declare class URLSearchParams {
  constructor(init?: string | Record<string, string> | Iterable<[string, string]> | URLSearchParams);
  readonly size: number;
  append(name: string, value: string): void; delete(name: string): void; get(name: string): string | null; getAll(name: string): string[]; has(name: string): boolean; set(name: string, value: string): void; sort(): void;
  forEach(callback: (value: string, key: string, parent: URLSearchParams) => void): void;
  keys(): IterableIterator<string>; values(): IterableIterator<string>; entries(): IterableIterator<[string, string]>; [Symbol.iterator](): IterableIterator<[string, string]>;
  toString(): string;
}
declare class TextEncoder {
  readonly encoding: "utf-8";
  encode(input?: string): Uint8Array;
}
declare class TextDecoder {
  constructor(label?: "utf-8");
  readonly encoding: "utf-8";
  decode(input?: ArrayBuffer | ArrayBufferView): string;
}
/** Base64 of a Latin-1 string. */
declare function btoa(data: string): string;
/** Decodes base64 to a Latin-1 string. */
declare function atob(data: string): string;
/** A deep copy of plain data, Maps, Sets, Dates, RegExps, typed arrays. */
declare function structuredClone<T>(value: T): T;
