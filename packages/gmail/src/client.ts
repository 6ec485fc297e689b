// The Gmail API client of @svc/gmail: one request per call with the shared Google access
// token GOOGLE_ACCESS_TOKEN (never refreshed), read by this Package itself; Google's answers
// and its error shape are read into GmailError by @svc/kit (shared with the other Google Packages).
import secrets from "svc:secrets";
import { get, post, del } from "svc:http";
import { authorization as bearer, googleAnswers, queryString, type Json } from "@svc/kit";
import { GmailError } from "./errors";

const API = "https://gmail.googleapis.com/gmail/v1/users/me/";

export { GmailError };
export type { Json };

const { answer, failure: googleError } = googleAnswers(GmailError, { service: "Gmail", emptyBodyIsObject: true });

/** Query parameters; undefined and null are left out, arrays repeat the name. */
export type Query = Record<string, string | number | boolean | string[] | null | undefined>;

function authorization(): Record<string, string> {
  return bearer(secrets.get("GOOGLE_ACCESS_TOKEN"), GmailError, "GOOGLE_ACCESS_TOKEN is not set: declare and bind it in the Blueprint's secrets (it is never refreshed by the Package)");
}

/** GET `users/me/<path>`; returns the parsed JSON object. */
export function apiGet(path: string, params: Query = {}): Json {
  const headers = authorization();
  const r = get(API + path + queryString(params), headers);
  return answer(what(path), r.status, r.headers, r.body);
}

/** POST a JSON body to `users/me/<path>`. */
export function apiPost(path: string, body: unknown, params: Query = {}): Json {
  const headers = authorization();
  const r = post(API + path + queryString(params), body ?? {}, { ...headers, "content-type": "application/json; charset=utf-8" });
  return answer(what(path), r.status, r.headers, r.body);
}

/** DELETE `users/me/<path>` (Gmail answers 204 without a body). */
export function apiDelete(path: string): void {
  const headers = authorization();
  const r = del(API + path, headers);
  if (r.status < 200 || r.status > 299) throw googleError(what(path), r.status, r.headers, r.body);
}

/** The resource part of a path for messages ("messages/send", "threads/{id}" -> "threads"). */
function what(path: string): string {
  return path.split("?")[0].split("/").slice(0, 1).join("/") || "request";
}
