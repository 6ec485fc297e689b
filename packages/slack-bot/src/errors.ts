// The error class of @svc/slack-bot: its own (a Package's class cannot extend another principal's),
// with the fields @svc/kit describes and fills for both Slack Packages.
import { slackErrorFields, type ServiceErrorFields, type SlackErrorExtras } from "@svc/kit";

/**
 * A failed Slack call. `code` is one of `missing_token`, `invalid_argument`,
 * `invalid_response`, `unauthorized`, `forbidden`, `not_found`, `rate_limited`,
 * `http_error` or `slack_error` (any other Slack error string, kept in `slackError`).
 * `status` is the HTTP status (0 for local failures; Slack answers most errors with 200).
 * Slack's own `slackError`, the `neededScope` of `missing_scope` and `retryAfterSeconds` are
 * kept as they came, or null.
 */
export interface SlackError extends ServiceErrorFields, SlackErrorExtras {}
export class SlackError extends Error {
  constructor(code: string, message: string, status = 0, extra: Partial<SlackErrorExtras> = {}) {
    super(message);
    Object.assign(this, slackErrorFields("SlackError", code, status, extra));
  }
}
