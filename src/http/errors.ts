// Maps errors that escape a handler to HTTP answers. Route modules throw `HttpError`
// for answers with a code; anything else is an internal error, logged with context.
import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { ServerLog } from '../audit';
import type { AppEnv } from './types';

export class HttpError extends Error {
  constructor(
    readonly status: ContentfulStatusCode,
    readonly code: string,
    message: string,
    readonly extra: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = 'HttpError';
  }
}

export function errorResponder(log: ServerLog) {
  return (error: Error, c: Context<AppEnv>) => {
    if (error instanceof HttpError) {
      return c.json({ error: error.code, message: error.message, ...error.extra }, error.status);
    }
    log.error('svc_server::http', 'request failed', {
      method: c.req.method,
      path: new URL(c.req.url).pathname,
      error: error.message,
    });
    return c.json({ error: 'internal_error', message: 'the server failed to handle this request; see the server log' }, 500);
  };
}
