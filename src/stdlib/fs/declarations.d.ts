declare module "svc:fs" {
  /*
   * Symbolic links are never followed: a path through a link or ending at one throws
   * Error ("... is a symbolic link; file operations never follow links"). stat, exists
   * and list show a link as kind "symlink"; remove and a move within one volume act on the
   * link itself; copy refuses a link or a tree holding one. Programs cannot create links.
   */
  /** Largest file read()/readText() load whole: 52,428,800 bytes. */
  export function maxReadSize(): number;
  /** The file area's configuration (sizeLimit -1: none). Never reveals host paths. */
  export function info(): Info;
  /** The working directory relative paths resolve against. */
  export function cwd(): string;
  export function exists(path: string): boolean;
  export function size(path: string): number;
  export function stat(path: string): Stat | null;
  export function read(path: string): Uint8Array | null;
  export function readText(path: string): string | null;
  export function readBytes(path: string, offset: number, length: number): Uint8Array;
  /** Preview, encoding and line ending of a file's first bytes. */
  export function peek(path: string): Peek;
  /** Lines without their line ending. */
  export function lines(path: string): string[];
  /** The file in chunks (default 65,536 bytes). */
  export function bytes(path: string, chunkSize?: number): Uint8Array[];
  /** Buffered writer; close() creates or replaces the file atomically; never closed = no file. */
  export function writer(path: string): FileWriter;
  export function write(path: string, content: Uint8Array | string): void;
  export function writeText(path: string, content: string): void;
  export function append(path: string, content: Uint8Array | string): void;
  export function appendText(path: string, content: string): void;
  export function mkdir(path: string, recursive?: boolean): void;
  export function remove(path: string, recursive?: boolean): void;
  export function move(from: string, to: string): void;
  export function copy(from: string, to: string, recursive?: boolean): void;
  /** Parent before contents, siblings in byte order. */
  export function list(path: string, recursive?: boolean): DirEntry[];
  export type Kind = "file" | "directory" | "symlink" | "other";
  export interface Stat { readonly kind: Kind; readonly size: number; readonly modifiedAt: number; }
  export interface DirEntry { readonly kind: Kind; readonly name: string; readonly path: string; readonly size: number; }
  export interface Info {
    readonly mode: "none" | "ephemeral" | "per_session" | "named";
    readonly sizeLimit: number;
    readonly access: "read_write" | "read_only";
    readonly volume: string;
    readonly mounts: MountInfo[];
  }
  export interface Peek { readonly preview: string; readonly encoding: "utf-8" | "utf-16le" | "utf-16be" | "latin1"; readonly lineEnding: "lf" | "crlf"; readonly size: number; }
  export interface FileWriter { writeLine(line: string): void; writeBytes(bytes: Uint8Array): void; close(): void; }
  export interface MountInfo { readonly path: string; readonly mode: "named"; readonly volume: string; readonly access: "read_write" | "read_only"; readonly sizeLimit: number; }
}
