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

/**
 * The request body as text (UTF-8, a BOM dropped, as `Request.text()` decodes it). When the
 * request has a Content-Length (already checked by `jsonBodyLimit`) and nothing has
 * started reading it, the body is read straight from Node's request: building a web
 * `Request` around it cost about a third of a small request's CPU. Anything else goes
 * through hono's request, which keeps the limit on chunked bodies.
 */
export async function bodyText(c: Context<AppEnv>): Promise<string> {
  const incoming = c.env?.incoming;
  const direct = incoming !== undefined && c.req.header('content-length') !== undefined && c.req.header('transfer-encoding') === undefined && incoming.readableFlowing === null && !incoming.readableEnded;
  if (!direct) return c.req.text();
  const chunks: Buffer[] = [];
  let size = 0;
  await new Promise<void>((resolve, reject) => {
    incoming.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_JSON_BODY_BYTES) {
        incoming.destroy();
        reject(new Error('request body is larger than 2 MiB'));
        return;
      }
      chunks.push(chunk);
    });
    incoming.once('end', resolve);
    incoming.once('error', reject);
    incoming.once('close', () => (incoming.readableEnded ? resolve() : reject(new Error('the client closed the connection before the body arrived'))));
  });
  return utf8.decode(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks));
}

const utf8 = new TextDecoder();

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
      text = await bodyText(c);
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
