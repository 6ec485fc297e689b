declare module "svc:code" {
  export interface Line { line: number; text: string; }
  export interface ReadResult { path: string; lines: Line[]; truncated: boolean; }
  export interface SearchOptions { path?: string; include?: string[]; exclude?: string[]; caseSensitive?: boolean; context?: number; mode?: "matches" | "files" | "counts"; limit?: number; }
  export interface SearchMatch { path: string; line: number; text: string; before: Line[]; after: Line[]; }
  export interface SearchResult { matches: SearchMatch[]; files: string[]; counts: { path: string; count: number }[]; truncated: boolean; }
  export interface ListingEntry { path: string; kind: "file" | "directory" | "symlink" | "other"; depth: number; modifiedAt: number; }
  export interface Listing { entries: ListingEntry[]; truncated: boolean; }
  export interface Mutation { success: boolean; changed: boolean; diff: string; diagnostics: { hunk: number; line: number; message: string }[]; }
  /** Line window: offset 1-based (default 1), limit default 200, max 2,000. */
  export function read(path: string, offset?: number, limit?: number): ReadResult;
  /** RE2 pattern search over the file area (hidden and .gitignore'd paths skipped). */
  export function search(pattern: string, options?: SearchOptions | null): SearchResult;
  /** *, **, ?, {a,b}, [...]; relative to cwd() unless starting with /; newest first. */
  export function glob(pattern: string): Listing;
  export function tree(path?: string, depth?: number): Listing;
  /** Exact replacement of oldString (nearest nearLine when it occurs several times). */
  export function edit(path: string, oldString: string, newString: string, replaceAll?: boolean, nearLine?: number): Mutation;
  /** Inserts text before 1-based line (line count + 1 appends). */
  export function insertAt(path: string, line: number, text: string): Mutation;
  export function diffText(a: string, b: string): string;
  export function diffFiles(a: string, b: string): string;
  /** Unified diff hunks for this one file; all hunks or nothing. */
  export function applyPatch(path: string, patch: string): Mutation;
}
