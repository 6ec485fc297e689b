import { label, expectException, expectLocalFailure } from "svc:test";
import { argumentChecks, authorization, errorFields, failureCode, googleAnswers, googleErrorFields, queryString, slackAnswers, slackArgumentChecks, slackOperations, type GoogleErrorExtras } from "@svc/kit";

class KitTestError extends Error {
  code: string;
  status: number;
  extra: Record<string, unknown>;
  constructor(code: string, message: string, status = 0, extra: Record<string, unknown> = {}) {
    super(message);
    this.name = "KitTestError";
    this.code = code;
    this.status = status;
    this.extra = extra;
  }
}

export function main() {
  label("argument checks raise the caller's own error class, naming the parameter");
  const checks = argumentChecks(KitTestError);
  const bad = expectException(() => checks.limitArg(0, "options.limit", 10), "KitTestError") as KitTestError;
  assert(bad instanceof KitTestError && bad.code === "invalid_argument" && bad.message.includes("options.limit"));
  assert(checks.optionsArg(null).constructor === Object);
  label("a missing token is missing_token of the caller's class");
  assert((expectException(() => authorization(undefined, KitTestError, "bind it"), "KitTestError") as KitTestError).code === "missing_token");
  assert(authorization("t", KitTestError, "bind it").authorization === "Bearer t");
  label("a failed answer's status alone names its code");
  assert([401, 403, 404, 429, 500, 409].map(failureCode).join() === "unauthorized,forbidden,not_found,rate_limited,http_error,http_error");
  label("query strings leave out null and repeat or join arrays");
  assert(queryString({ a: 1, b: null, c: ["x", "y"] }) === "?a=1&c=x&c=y");
  assert(queryString({ c: ["x", "y"] }, "comma") === "?c=x%2Cy");
  label("Slack ok:false answers map to codes, with the Package's extra not-found strings");
  const slack = slackAnswers(KitTestError, ["file_not_found"]);
  const none = new Map<string, string>();
  assert((expectException(() => slack.answer("files.info", 200, none, '{"ok":false,"error":"file_not_found"}'), "KitTestError") as KitTestError).code === "not_found");
  assert((expectException(() => slackAnswers(KitTestError).answer("files.info", 200, none, '{"ok":false,"error":"file_not_found"}'), "KitTestError") as KitTestError).code === "slack_error");
  assert(slack.answer("auth.test", 200, none, '{"ok":true,"user":"u"}').user === "u");
  assert((expectException(() => slackArgumentChecks(KitTestError).channelIdArg("#general"), "KitTestError") as KitTestError).code === "invalid_argument");
  label("Google errors: a rate reason on 403 is rate_limited, Retry-After is kept");
  const google = googleAnswers(KitTestError, { service: "Drive", rateReasons: ["sharingRateLimitExceeded"] });
  const limited = google.failure("files", 403, new Map([["retry-after", "7"]]), '{"error":{"status":"PERMISSION_DENIED","errors":[{"reason":"sharingRateLimitExceeded"}]}}') as KitTestError;
  assert(limited.code === "rate_limited" && limited.extra.retryAfterSeconds === 7 && limited.message.startsWith("Drive files failed: HTTP 403"));
  assert((expectException(() => google.answer("files", 200, none, ""), "KitTestError") as KitTestError).code === "invalid_response");
  label("Slack operations check their arguments when prepared, name the facts to check, and send only on run()");
  const sent: string[] = [];
  const operations = slackOperations(KitTestError, slack, {
    get: (method) => (sent.push(method), { ok: true, messages: [{ ts: "1.2", text: "hi" }] }),
    post: (method) => (sent.push(method), method === "conversations.open" ? { ok: true, channel: { id: "G0GROUP" } } : { ok: true, channel: "G0GROUP", ts: "1.3" }),
  });
  assert((expectException(() => operations.listMessages("#general", {}), "KitTestError") as KitTestError).code === "invalid_argument" && sent.length === 0);
  const reading = operations.getMessage("C0123ABCD", "1.2");
  assert(reading.channelId === "C0123ABCD" && sent.length === 0);
  assert(reading.run().text === "hi" && sent.join() === "conversations.history");
  const group = operations.sendGroupDirectMessage(["U0B", "U0A", "U0B", "U0C"], "hello", null);
  assert(group.userIds.join() === "U0A,U0B,U0C" && sent.length === 1);
  assert(group.run().channelId === "G0GROUP" && sent.join() === "conversations.history,conversations.open,chat.postMessage");
  label("errorFields: a Package's own class gets name, code, status and its extras (null when absent, unknown keys ignored)");
  const fields = errorFields("KitTestError", "rate_limited", 429, { retryAfterSeconds: 3, surplus: "x" } as { retryAfterSeconds?: number | null; requestId?: string | null }, ["retryAfterSeconds", "requestId"]);
  assert(JSON.stringify(fields) === '{"name":"KitTestError","code":"rate_limited","status":429,"retryAfterSeconds":3,"requestId":null}', JSON.stringify(fields));
  class OwnError extends Error {
    constructor(code: string, message: string, status = 0, extra: Partial<GoogleErrorExtras> = {}) {
      super(message);
      Object.assign(this, googleErrorFields("OwnError", code, status, extra));
    }
  }
  const own = new OwnError("forbidden", "no", 403, { reason: "insufficientPermissions" }) as OwnError & Record<string, unknown>;
  assert(own instanceof OwnError && own instanceof Error && own.name === "OwnError" && own.message === "no");
  assert(own.code === "forbidden" && own.status === 403 && own.reason === "insufficientPermissions" && own.googleStatus === null && own.retryAfterSeconds === null);
  label("expectLocalFailure gives the code of a status-0 failure and refuses any other");
  assert(expectLocalFailure(() => argumentChecks(KitTestError).limitArg(0, "options.limit", 10), "KitTestError") === "invalid_argument");
  const answered = expectException(() => expectLocalFailure(() => { throw new KitTestError("http_error", "boom", 500); }, "KitTestError"));
  assert(answered.message.includes("expected status 0"), answered.message);
}
