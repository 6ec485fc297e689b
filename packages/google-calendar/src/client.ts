// The Google Calendar API v3 client of @svc/google-calendar: one request per call with the shared Google access
// token GOOGLE_ACCESS_TOKEN (never refreshed), read by this Package itself; Google's answers
// and its error shape are read into CalendarError by @svc/kit (shared with the other Google Packages).
import secrets from "svc:secrets";
import { get, post, patch, del } from "svc:http";
import { authorization as bearer, googleAnswers, queryString, type Json } from "@svc/kit";
import { CalendarError } from "./errors";

const API = "https://www.googleapis.com/calendar/v3/";

export { CalendarError };
export type { Json };

const { answer, failure: googleError } = googleAnswers(CalendarError, { service: "Calendar", notFoundStatuses: [410] });

/** Query parameters; undefined and null are left out, arrays repeat the name. */
export type Query = Record<string, string | number | boolean | string[] | null | undefined>;

function authorization(): Record<string, string> {
  return bearer(secrets.get("GOOGLE_ACCESS_TOKEN"), CalendarError, "GOOGLE_ACCESS_TOKEN is not set: declare and bind it in the Blueprint's secrets (it is never refreshed by the Package)");
}

const JSON_TYPE = { "content-type": "application/json; charset=utf-8" };

/** GET `calendar/v3/<path>`. */
export function apiGet(what: string, path: string, params: Query = {}): Json {
  const headers = authorization();
  const r = get(API + path + queryString(params), headers);
  return answer(what, r.status, r.headers, r.body);
}

/** POST a JSON body. */
export function apiPost(what: string, path: string, body: unknown, params: Query = {}): Json {
  const headers = authorization();
  const r = post(API + path + queryString(params), body ?? {}, { ...headers, ...JSON_TYPE });
  return answer(what, r.status, r.headers, r.body);
}

/** PATCH with a JSON body (only the fields given change). */
export function apiPatch(what: string, path: string, body: unknown, params: Query = {}): Json {
  const headers = authorization();
  const r = patch(API + path + queryString(params), body ?? {}, { ...headers, ...JSON_TYPE });
  return answer(what, r.status, r.headers, r.body);
}

/** DELETE (Calendar answers 204 without a body). */
export function apiDelete(what: string, path: string, params: Query = {}): void {
  const headers = authorization();
  const r = del(API + path + queryString(params), headers);
  if (r.status < 200 || r.status > 299) throw googleError(what, r.status, r.headers, r.body);
}
