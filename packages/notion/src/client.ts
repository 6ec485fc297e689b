// The Notion REST client of @svc/notion: the token, the version header, one request per
// call, Notion's error objects and HTTP failures turned into NotionError.
import secrets from "svc:secrets";
import { get, patch, post } from "svc:http";
import { authorization, failureCode, queryString } from "@svc/kit";
import { NotionError } from "./errors";

const API = "https://api.notion.com/v1/";

export { NotionError };
/** The API version with data sources, views and the Markdown endpoints. */
export const NOTION_VERSION = "2025-09-03";

/** A JSON object as Notion returns it. */
export type Json = Record<string, unknown>;

function headers(extra: Record<string, string> = {}): Record<string, string> {
  const token = authorization(secrets.get("NOTION_ACCESS_TOKEN"), NotionError, "NOTION_ACCESS_TOKEN is not set: declare and bind it in the Blueprint's secrets");
  return { ...token, "notion-version": NOTION_VERSION, ...extra };
}

/** `?a=1&b=2` from the defined values (arrays repeat the key). */
export { queryString as query };

/** GET `path` (relative to /v1/, query included). */
export function notionGet(path: string): Json {
  const h = headers();
  const r = get(API + path, h);
  return answer("GET", path, r.status, r.headers, r.body);
}

/** POST a JSON body to `path`. */
export function notionPost(path: string, body: unknown): Json {
  const h = headers({ "content-type": "application/json" });
  const r = post(API + path, body as object, h);
  return answer("POST", path, r.status, r.headers, r.body);
}

/** PATCH a JSON body to `path`. */
export function notionPatch(path: string, body: unknown): Json {
  const h = headers({ "content-type": "application/json" });
  const r = patch(API + path, body as object, h);
  return answer("PATCH", path, r.status, r.headers, r.body);
}

/** POST a multipart/form-data body (file upload parts). */
export function notionPostMultipart(path: string, body: Uint8Array, boundary: string): Json {
  const h = headers({ "content-type": "multipart/form-data; boundary=" + boundary });
  const r = post(API + path, body, h);
  return answer("POST", path, r.status, r.headers, r.body);
}

function answer(method: string, path: string, status: number, responseHeaders: Map<string, string>, text: string): Json {
  const where = `Notion ${method} /v1/${path.split("?")[0]}`;
  let parsed: unknown;
  let parseFailed = false;
  try {
    parsed = JSON.parse(text);
  } catch {
    parseFailed = true;
  }
  const body = parsed !== null && typeof parsed === "object" && !Array.isArray(parsed) ? (parsed as Json) : null;
  if (status < 200 || status > 299) {
    const notionCode = body && typeof body.code === "string" ? body.code : null;
    const requestId = body && typeof body.request_id === "string" ? body.request_id : null;
    const detail = body && typeof body.message === "string" ? `: ${body.message}` : "";
    let retryAfterSeconds: number | null = null;
    if (status === 429) {
      const seconds = Number(responseHeaders.get("retry-after"));
      retryAfterSeconds = Number.isFinite(seconds) && seconds >= 0 ? seconds : null;
    }
    throw new NotionError(failureCode(status), `${where} failed: HTTP ${status}${notionCode ? ` ${notionCode}` : ""}${detail}`, status, { notionCode, requestId, retryAfterSeconds });
  }
  if (parseFailed || body === null) throw new NotionError("invalid_response", `${where} answered with a body that is not a JSON object`, status);
  return body;
}
