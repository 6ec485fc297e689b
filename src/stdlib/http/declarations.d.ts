declare module "svc:http" {
  export type Headers = Map<string, string>;
  export type HeadersInit = Map<string, string> | Record<string, string>;
  export type Body = string | Uint8Array | object | unknown[] | null | undefined;
  export function get(url: string, headers?: HeadersInit | null): Response;
  export function head(url: string, headers?: HeadersInit | null): Response;
  export function options(url: string, headers?: HeadersInit | null): Response;
  export function del(url: string, headers?: HeadersInit | null): Response;
  export function post(url: string, body?: Body, headers?: HeadersInit | null): Response;
  export function put(url: string, body?: Body, headers?: HeadersInit | null): Response;
  export function patch(url: string, body?: Body, headers?: HeadersInit | null): Response;
  /** Any method token; gated as http.<method lower-cased>. */
  export function request(method: string, url: string, body?: Body, headers?: HeadersInit | null): Response;
  /** Stream a response body straight into a file of the file area (written whatever the status). */
  export function download(url: string, path: string, options?: DownloadOptions | null): DownloadResult;
  export interface DownloadOptions { overwrite?: boolean; maxBytes?: number; headers?: HeadersInit | null; timeout?: number; decompress?: boolean; }
  export interface DownloadResult { readonly status: number; readonly bytesWritten: number; readonly contentType: string; readonly duration_ms: number; readonly finalUrl: string; readonly path: string; toString(): string; }
  export interface Response {
    readonly status: number;
    readonly statusText: string;
    readonly ok: boolean;
    readonly headers: Headers;
    readonly body: string;
    readonly url: string;
    json(): unknown;
    throwForStatus(): void;
    toString(): string;
  }
}
