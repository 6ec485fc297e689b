declare module "svc:session" {
  /** The stored JSON value, or undefined when the key is missing. */
  export function get<T = unknown>(key: string): T | undefined;
  /** True when the key exists (a stored null counts). */
  export function has(key: string): boolean;
  /** Store a JSON value; replaces any previous value. */
  export function set(key: string, value: unknown): void;
  /** Remove the key; true if it existed. */
  export function remove(key: string): boolean;
  /** One page of keys starting with prefix (default limit 100); continue while nextCursor is defined. */
  export function list(prefix: string, limit?: number, cursor?: string): Page;
  export interface Entry { readonly key: string; readonly sizeBytes: number; }
  export interface Page { readonly entries: Entry[]; readonly nextCursor: string | undefined; }
}
