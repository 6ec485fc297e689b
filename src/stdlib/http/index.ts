// `svc:http`: outbound HTTP(S) through the egress guard. The guest side turns replies into
// Response objects (headers as a Map, json(), throwForStatus()).
import type { HostModule } from '../types';
import { httpOperations } from './operations';

export type { HttpServices } from './operations';

// Trusted guest code: it runs on the primordials `P` only (see src/stdlib/types.ts).
const guest = `function (call, P) {
  const wrap = (r) => {
    const status = P.own(r, "status");
    const statusText = P.own(r, "statusText");
    const url = P.own(r, "url");
    const body = P.own(r, "body");
    const headers = new P.Map_();
    const raw = P.own(r, "headers");
    const names = raw === null || typeof raw !== "object" ? [] : P.ObjectKeys(raw);
    for (let i = 0; i < names.length; i++) P.MapPrototypeSet(headers, names[i], raw[names[i]]);
    const ok = status >= 200 && status < 300;
    return P.ObjectFreeze({
      status, statusText, ok, headers, body, url,
      json() { return P.JSONParse(body); },
      throwForStatus() { if (!ok) throw new P.Error_("HTTP " + status + (statusText ? " " + statusText : "") + " from " + url); },
      toString() { return "Response(" + status + " " + statusText + ", " + url + ")"; },
    });
  };
  const del = (url, headers) => wrap(call("delete", url, headers));
  return {
    get: (url, headers) => wrap(call("get", url, headers)),
    head: (url, headers) => wrap(call("head", url, headers)),
    options: (url, headers) => wrap(call("options", url, headers)),
    delete: del,
    del,
    post: (url, body, headers) => wrap(call("post", url, body, headers)),
    put: (url, body, headers) => wrap(call("put", url, body, headers)),
    patch: (url, body, headers) => wrap(call("patch", url, body, headers)),
    request: (method, url, body, headers) => wrap(call("request", method, url, body, headers)),
    download: (url, path, options) => {
      const r = call("download", url, path, options);
      const status = P.own(r, "status");
      const bytesWritten = P.own(r, "bytesWritten");
      const written = P.own(r, "path");
      return P.ObjectFreeze({
        status, bytesWritten, contentType: P.own(r, "contentType"), duration_ms: P.own(r, "duration_ms"), finalUrl: P.own(r, "finalUrl"), path: written,
        toString() { return "Download(" + status + ", " + bytesWritten + " bytes -> " + written + ")"; },
      });
    },
  };
}`;

export const httpModule: HostModule = {
  name: 'svc:http',
  description: 'Outbound HTTP(S) requests (checked by the policy and the network block)',
  declarations: `declare module "svc:http" {
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
`,
  operations: httpOperations,
  guest,
};
