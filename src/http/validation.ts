// Request pre-checks shared by every /v1 route: body size (413), content type (415),
// JSON syntax (400), JSON shape (422) and required query parameters (400). All answer
// with plain-text bodies, before the endpoint runs.
import type { Context, MiddlewareHandler } from 'hono';
import type { z } from 'zod';
import { sliceWithRoom } from '../../sandbox/loop-slices';
import type { AppEnv } from './types';

export const MAX_JSON_BODY_BYTES = 2 * 1024 * 1024;

const TOO_LARGE = 'request body is larger than 2 MiB';

/**
 * A declared Content-Length over 2 MiB is refused before anything reads the body; a
 * chunked body is measured while `bodyText` reads it. (hono's bodyLimit would build a web
 * `Request` around every body just to look at it.)
 */
export const jsonBodyLimit: MiddlewareHandler<AppEnv> = async (c, next) => {
  const length = c.req.header('content-length');
  if (length !== undefined && c.req.header('transfer-encoding') === undefined && Number(length) > MAX_JSON_BODY_BYTES) return bodyTooLarge(c);
  return next();
};

/** The body passed 2 MiB while it was read. */
export class BodyTooLargeError extends Error {
  constructor() {
    super(TOO_LARGE);
  }
}

/** The 413 answer for a body that passed the limit. */
export function bodyTooLarge(c: Context<AppEnv>): Response {
  return c.text(TOO_LARGE, 413);
}

/**
 * The request body as text (UTF-8, a BOM dropped, as `Request.text()` decodes it), read
 * straight from Node's request: building a web `Request` around it cost about a third of
 * a small request's CPU. Throws BodyTooLargeError past 2 MiB; what the client still sends
 * is read and dropped by the listener once the answer is out.
 */
export async function bodyText(c: Context<AppEnv>): Promise<string> {
  const incoming = c.env?.incoming;
  // Without Node's request (app.request in tests) or once something else reads it, hono's request does.
  if (incoming === undefined || incoming.readableFlowing !== null || incoming.readableEnded) return c.req.text();
  const chunks: Buffer[] = [];
  let size = 0;
  await new Promise<void>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_JSON_BODY_BYTES) {
        chunks.push(chunk);
        return;
      }
      incoming.off('data', onData);
      chunks.length = 0;
      reject(new BodyTooLargeError());
    };
    incoming.on('data', onData);
    incoming.once('end', () => resolve());
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
      if (error instanceof BodyTooLargeError) return bodyTooLarge(c);
      return c.text(`could not read the request body: ${(error as Error).message}`, 400);
    }
    // What follows (the parse, the check, the endpoint's start: a run's record and dispatch)
    // is done in bounded slices of the loop: a burst of bodies read in one turn is spread.
    const slice = sliceWithRoom();
    if (slice) await slice;
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

/** The validated body set by `jsonBody` (an endpoint mounted with `serve` gets it typed as `input.body`). */
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
