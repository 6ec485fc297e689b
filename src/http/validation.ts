// Request pre-checks shared by every /v1 route: body size (413), content type (415),
// JSON syntax (400), JSON shape (422) and required query parameters (400). All answer
// with plain-text bodies, before the endpoint runs.
import type { Context, MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import type { z } from 'zod';
import type { AppEnv } from './types';

export const MAX_JSON_BODY_BYTES = 2 * 1024 * 1024;

/** Stops reading once the body passes 2 MiB (also without Content-Length). */
export const jsonBodyLimit: MiddlewareHandler<AppEnv> = bodyLimit({
  maxSize: MAX_JSON_BODY_BYTES,
  onError: (c) => c.text('request body is larger than 2 MiB', 413),
});

function isJsonContentType(value: string | undefined): boolean {
  if (!value) return false;
  return value.split(';')[0].trim().toLowerCase() === 'application/json';
}

function describeIssue(issue: z.core.$ZodIssue): string {
  const where = issue.path.length > 0 ? `field \`${issue.path.join('.')}\`` : 'the body';
  return `${where}: ${issue.message}`;
}

/**
 * Validates the JSON body against a zod schema; the parsed value is available as
 * `c.get('body')`. Unknown fields are ignored (zod objects strip them).
 */
export function jsonBody<S extends z.ZodType>(schema: S): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    if (!isJsonContentType(c.req.header('content-type'))) {
      return c.text('this endpoint takes a JSON body: send `Content-Type: application/json`', 415);
    }
    let text: string;
    try {
      text = await c.req.text();
    } catch (error) {
      // bodyLimit aborts the stream with its own response; anything else is a client read error.
      if (c.res && c.res.status === 413) return c.res;
      return c.text(`could not read the request body: ${(error as Error).message}`, 400);
    }
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      return c.text(`request body is not valid JSON: ${(error as Error).message}`, 400);
    }
    const parsed = schema.safeParse(value);
    if (!parsed.success) {
      const details = parsed.error.issues.slice(0, 5).map(describeIssue).join('; ');
      return c.text(`request body has the wrong shape: ${details}`, 422);
    }
    c.set('body', parsed.data);
    return next();
  };
}

/** The validated body set by `jsonBody`. */
export function bodyOf<T>(c: Context<AppEnv>): T {
  return c.get('body') as T;
}

/** Requires query parameters to be present (400 plain text otherwise). */
export function requireQuery(...names: string[]): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    for (const name of names) {
      if (c.req.query(name) === undefined) return c.text(`missing required query parameter \`${name}\``, 400);
    }
    return next();
  };
}
