// The Slack Web API client of @svc/slack-user: one request per call with SLACK_USER_TOKEN, read by
// this Package itself; Slack's answers are read by @svc/kit (shared with @svc/slack-bot).
import secrets from "svc:secrets";
import { get, post } from "svc:http";
import { authorization, compact, queryString, slackAnswers, slackOperations, type Json } from "@svc/kit";
import { SlackError } from "./errors";

const API = "https://slack.com/api/";

export { SlackError };
export type { Json };
export { field };

/** Query and body parameters; undefined and null values are left out. */
export type Params = Record<string, unknown>;

const answers = slackAnswers(SlackError, ["file_not_found"]);
const { answer, field } = answers;

/** The `Authorization` header with this Package's token; missing_token without it. */
export function tokenHeader(): Record<string, string> {
  return authorization(secrets.get("SLACK_USER_TOKEN"), SlackError, "SLACK_USER_TOKEN is not set: declare and bind it in the Blueprint's secrets");
}

/** Calls a read method with GET and query parameters (Slack's read methods take form encoding, not JSON). */
export function callGet(method: string, params: Params = {}): Json {
  const r = get(API + method + queryString(params, "comma"), tokenHeader());
  return answer(method, r.status, r.headers, r.body);
}

/** Calls a write method with POST and a JSON body. */
export function callPost(method: string, params: Params = {}): Json {
  const r = post(API + method, compact(params), { ...tokenHeader(), "content-type": "application/json; charset=utf-8" });
  return answer(method, r.status, r.headers, r.body);
}

/** The operations both Slack Packages offer (written in @svc/kit), sending through the calls above. */
export const slack = slackOperations(SlackError, answers, { get: callGet, post: callPost });
