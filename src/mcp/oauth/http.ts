// Outbound requests of the OAuth flows (metadata, registration, token endpoint): through
// the egress guard, 30-second timeout, 64 KiB cap on the answer.
import { fetch as undiciFetch, type Dispatcher } from 'undici';

export const OAUTH_TIMEOUT_MS = 30_000;
export const OAUTH_MAX_BYTES = 64 * 1024;
const EXCERPT = 200;

export interface OAuthAnswer {
  status: number;
  /** The body parsed as JSON, or as a form when the server answered form-encoded. */
  body: Record<string, unknown> | null;
  text: string;
}

export async function oauthRequest(dispatcher: Dispatcher, url: string, init: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<OAuthAnswer> {
  const response = await undiciFetch(url, {
    method: init.method ?? 'GET',
    headers: { accept: 'application/json', ...(init.headers ?? {}) },
    ...(init.body !== undefined ? { body: init.body } : {}),
    dispatcher,
    redirect: 'manual',
    signal: AbortSignal.timeout(OAUTH_TIMEOUT_MS),
  });
  const chunks: Uint8Array[] = [];
  let size = 0;
  if (response.body) {
    for await (const chunk of response.body as AsyncIterable<Uint8Array>) {
      size += chunk.byteLength;
      if (size > OAUTH_MAX_BYTES) throw new Error(`${new URL(url).host} answered more than ${OAUTH_MAX_BYTES} bytes`);
      chunks.push(chunk);
    }
  }
  const text = Buffer.concat(chunks).toString('utf8');
  const type = response.headers.get('content-type') ?? '';
  let body: Record<string, unknown> | null = null;
  try {
    const parsed = JSON.parse(text);
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) body = parsed as Record<string, unknown>;
  } catch {
    if (type.includes('application/x-www-form-urlencoded') || /^[\w.-]+=/.test(text)) body = Object.fromEntries(new URLSearchParams(text));
  }
  return { status: response.status, body, text };
}

/** A bounded, single-line excerpt of an answer for error messages. */
export function excerpt(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > EXCERPT ? `${flat.slice(0, EXCERPT)}…` : flat;
}

export const form = (fields: Record<string, string | undefined>): string =>
  new URLSearchParams(Object.entries(fields).filter((e): e is [string, string] => e[1] !== undefined && e[1] !== '')).toString();
