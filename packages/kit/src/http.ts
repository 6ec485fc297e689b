// HTTP and JSON plumbing that involves no request: the consuming Package reads its own
// secret and makes its own call (so the secret, the grant and the derived `requires` stay
// its own) and hands the kit only values.
import type { ErrorClass, Json } from "./errors";

/**
 * The `Authorization: Bearer` header for a token the caller has read itself.
 * @param token The value of `secrets.get(...)` in the consuming Package.
 * @param errorClass The consuming Package's error class; `missing_token` when the token is absent or empty.
 * @param missing The message of that error (which secret to declare and bind).
 * @returns `{ authorization: "Bearer <token>" }`.
 */
export function authorization(token: string | null | undefined, errorClass: ErrorClass, missing: string): Record<string, string> {
  if (token == null || token === "") throw new errorClass("missing_token", missing);
  return { authorization: "Bearer " + token };
}

/**
 * A query string: undefined and null values left out, arrays repeating the name (or joined with commas).
 * @param params The parameters.
 * @param arrays `repeat` (`a=1&a=2`, the default) or `comma` (`a=1,2`; objects as JSON).
 * @returns `"?a=1&b=2"`, or `""` when nothing is left.
 */
export function queryString(params: Record<string, unknown>, arrays: "repeat" | "comma" = "repeat"): string {
  const parts: string[] = [];
  for (const [key, value] of Object.entries(params)) {
    if (value == null) continue;
    const values = !Array.isArray(value) ? [typeof value === "object" && arrays === "comma" ? JSON.stringify(value) : String(value)] : arrays === "comma" ? [value.join(",")] : value.map(String);
    for (const item of values) parts.push(encodeURIComponent(key) + "=" + encodeURIComponent(item));
  }
  return parts.length > 0 ? "?" + parts.join("&") : "";
}

/**
 * A body without its undefined and null fields.
 * @param params The fields.
 * @returns A new object holding the others.
 */
export function compact(params: Record<string, unknown>): Json {
  const body: Json = {};
  for (const [key, value] of Object.entries(params)) if (value != null) body[key] = value;
  return body;
}

/** The codes a non-2xx answer maps to by its status alone. */
export type FailureCode = "unauthorized" | "forbidden" | "not_found" | "rate_limited" | "http_error";

/**
 * The error code of a failed answer by its HTTP status alone.
 * @param status The HTTP status (not 2xx).
 * @returns 401 `unauthorized`, 403 `forbidden`, 404 `not_found`, 429 `rate_limited`, any other `http_error`.
 */
export function failureCode(status: number): FailureCode {
  return status === 401 ? "unauthorized" : status === 403 ? "forbidden" : status === 404 ? "not_found" : status === 429 ? "rate_limited" : "http_error";
}

/**
 * `Retry-After` in seconds, or null when absent or not a number of seconds.
 * @param headers The answer's headers.
 * @returns The seconds, or null.
 */
export function retryAfter(headers: Map<string, string>): number | null {
  if (!headers.has("retry-after")) return null;
  const seconds = Number(headers.get("retry-after"));
  return Number.isFinite(seconds) && seconds >= 0 ? seconds : null;
}

/**
 * An answer's body as a JSON object, or an `invalid_response` error of the caller's class.
 * @param text The body.
 * @param status The HTTP status (kept on the error).
 * @param where What answered, for the message ("Slack chat.postMessage").
 * @param errorClass The consuming Package's error class.
 * @returns The parsed object.
 */
export function jsonObject(text: string, status: number, where: string, errorClass: ErrorClass): Json {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new errorClass("invalid_response", `${where} answered with a body that is not JSON`, status);
  }
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) throw new errorClass("invalid_response", `${where} answered with JSON that is not an object`, status);
  return parsed as Json;
}
