// The one error type of the HTTP layer and the one place that turns it into an answer:
// route modules and middleware throw `HttpError` with the documented status and JSON body;
// anything else is an internal error, logged with context.
import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { ServerLog } from '../audit';
import type { AppEnv } from './types';

/** A JSON error body: `error` names the failure, the other fields are the endpoint's own. */
export type ErrorBody = { error: string } & Record<string, unknown>;

export class HttpError extends Error {
  constructor(
    readonly status: ContentfulStatusCode,
    readonly body: ErrorBody,
  ) {
    super(typeof body.message === 'string' ? body.message : body.error);
    this.name = 'HttpError';
  }

  /** The common answer `{error, message, ...extra}`. */
  static of(status: ContentfulStatusCode, code: string, message: string, extra: Record<string, unknown> = {}): HttpError {
    return new HttpError(status, { error: code, message, ...extra });
  }
}

export function errorResponder(log: ServerLog) {
  return (error: Error, c: Context<AppEnv>) => {
    if (error instanceof HttpError) return c.json(error.body, error.status);
    log.error('svc_server::http', 'request failed', {
      method: c.req.method,
      path: new URL(c.req.url).pathname,
      error: error.message,
    });
    return c.json({ error: 'internal_error', message: 'the server failed to handle this request; see the server log' }, 500);
  };
}
