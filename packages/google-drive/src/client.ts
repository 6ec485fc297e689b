// The Google Drive API v3 client of @svc/google-drive: one request per call with the shared Google access
// token GOOGLE_ACCESS_TOKEN (never refreshed), read by this Package itself; Google's answers
// and its error shape are read into DriveError by @svc/kit (shared with the other Google Packages).
import secrets from "svc:secrets";
import { get, post, put, patch, del } from "svc:http";
import { authorization as bearer, googleAnswers, queryString as query, type Json } from "@svc/kit";
import { DriveError } from "./errors";

const API = "https://www.googleapis.com/drive/v3/";
/** The resumable-upload endpoint; sessions continue at the same URL with their `upload_id`. */
const UPLOAD = "https://www.googleapis.com/upload/drive/v3/files";

export { DriveError };
export type { Json };

const { answer, failure: googleError } = googleAnswers(DriveError, { service: "Drive", rateReasons: ["sharingRateLimitExceeded"], emptyBodyIsObject: true });

/** Query parameters; undefined and null are left out. */
export type Query = Record<string, string | number | boolean | null | undefined>;

/** The `Authorization` header; throws missing_token without the secret. */
export function authorization(): Record<string, string> {
  return bearer(secrets.get("GOOGLE_ACCESS_TOKEN"), DriveError, "GOOGLE_ACCESS_TOKEN is not set: declare and bind it in the Blueprint's secrets (it is never refreshed by the Package)");
}

/** `?a=1&b=2` with every call on shared drives too. */
export function queryString(params: Query): string {
  return query({ ...params, supportsAllDrives: true });
}

const JSON_TYPE = { "content-type": "application/json; charset=utf-8" };

export function apiGet(what: string, path: string, params: Query = {}): Json {
  const headers = authorization();
  const r = get(API + path + queryString(params), headers);
  return answer(what, r.status, r.headers, r.body);
}

/** GET whose answer is text (exports and `alt=media`), not JSON. */
export function apiGetText(what: string, path: string, params: Query = {}): string {
  const headers = authorization();
  const r = get(API + path + queryString(params), headers);
  if (r.status < 200 || r.status > 299) throw googleError(what, r.status, r.headers, r.body);
  return r.body;
}

export function apiPost(what: string, path: string, body: unknown, params: Query = {}): Json {
  const headers = authorization();
  const r = post(API + path + queryString(params), body ?? {}, { ...headers, ...JSON_TYPE });
  return answer(what, r.status, r.headers, r.body);
}

export function apiPatch(what: string, path: string, body: unknown, params: Query = {}): Json {
  const headers = authorization();
  const r = patch(API + path + queryString(params), body ?? {}, { ...headers, ...JSON_TYPE });
  return answer(what, r.status, r.headers, r.body);
}

export function apiDelete(what: string, path: string, params: Query = {}): void {
  const headers = authorization();
  const r = del(API + path + queryString(params), headers);
  if (r.status < 200 || r.status > 299) throw googleError(what, r.status, r.headers, r.body);
}

/** Opens a resumable upload session; returns its `upload_id`. */
export function startUpload(metadata: Json, contentType: string, length: number, params: Query): string {
  const headers = authorization();
  const r = post(UPLOAD + queryString({ ...params, uploadType: "resumable" }), metadata, { ...headers, ...JSON_TYPE, "x-upload-content-type": contentType, "x-upload-content-length": String(length) });
  if (r.status < 200 || r.status > 299) throw googleError("upload", r.status, r.headers, r.body);
  const location = r.headers.get("location") ?? "";
  // The session URL is ours to rebuild from its id, so a Location elsewhere is never followed.
  const match = /^https:\/\/www\.googleapis\.com\/upload\/drive\/v3\/files\?(?:.*&)?upload_id=([A-Za-z0-9_-]+)/.exec(location);
  if (!match) throw new DriveError("invalid_response", "Drive did not answer the resumable upload with a session Location on www.googleapis.com", r.status);
  return match[1];
}

/** The state of a session after one chunk: the next byte Drive expects, or the file when done. */
export type ChunkResult = { done: false; next: number } | { done: true; file: Json };

/** Sends bytes `[offset, offset + chunk.length)` of a `total`-byte upload. */
export function putChunk(uploadId: string, chunk: Uint8Array, offset: number, total: number, params: Query): ChunkResult {
  const headers = authorization();
  const range = total === 0 ? "bytes */0" : `bytes ${offset}-${offset + chunk.length - 1}/${total}`;
  const r = put(UPLOAD + queryString({ ...params, uploadType: "resumable", upload_id: uploadId }), chunk, { ...headers, "content-range": range });
  if (r.status === 308) {
    // "Resume Incomplete": Range says what Drive has stored (none yet when absent).
    const stored = /^bytes=0-(\d+)$/.exec(r.headers.get("range") ?? "");
    return { done: false, next: stored ? Number(stored[1]) + 1 : 0 };
  }
  return { done: true, file: answer("upload", r.status, r.headers, r.body) };
}
