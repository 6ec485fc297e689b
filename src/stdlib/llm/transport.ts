// One JSON POST to a model provider through the egress-guarded dispatcher, with the
// 10-minute request timeout, and the classification every provider client shares: an
// HTTP status becomes a reason, a failure before the request left is told apart from one
// after (only the latter may have cost tokens). Messages are fixed texts: never a URL
// (base URLs may carry secrets), a prompt, an output or a key.
import { errors as undiciErrors, request, type Dispatcher } from 'undici';
import { deadlineSignal, EgressBlockedError } from '../../network';

export const PROVIDER_TIMEOUT_MS = 10 * 60 * 1000;
/** Provider answers are JSON documents; anything larger is not one we asked for. */
const MAX_ANSWER_BYTES = 64 * 1024 * 1024;

export type FailureReason = 'rate-limited' | 'request-rejected' | 'provider-unavailable' | 'transport' | 'cancelled' | 'invalid-output';

export interface ProviderAnswer {
  status: number;
  /** Parsed JSON body, or undefined when the body was not JSON. */
  json: unknown;
}

/** The request never reached the provider (refused connection, DNS, TLS, egress block). */
export class NotSentError extends Error {
  constructor(
    readonly detail: string,
    readonly blocked: EgressBlockedError | null,
  ) {
    super(detail);
  }
}

/** The request was sent (or may have been) and no answer came: timeout, reset, cancellation. */
export class NoAnswerError extends Error {
  constructor(readonly reason: 'transport' | 'cancelled') {
    super(reason);
  }
}

const NOT_SENT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'UND_ERR_CONNECT_TIMEOUT', 'CERT_HAS_EXPIRED', 'DEPTH_ZERO_SELF_SIGNED_CERT', 'SELF_SIGNED_CERT_IN_CHAIN', 'UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'ERR_TLS_CERT_ALTNAME_INVALID', 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY']);

function notSentDetail(error: unknown): NotSentError | null {
  for (let e: any = error, depth = 0; e && depth < 4; e = e.cause, depth++) {
    if (e instanceof EgressBlockedError) return new NotSentError(e.message, e);
    if (e instanceof undiciErrors.ConnectTimeoutError) return new NotSentError('the connection timed out', null);
    if (typeof e.code === 'string' && NOT_SENT_CODES.has(e.code)) {
      const what = e.code === 'ECONNREFUSED' ? 'the connection was refused' : e.code.startsWith('E') && !e.code.startsWith('ERR_TLS') ? `the host could not be reached (${e.code})` : `TLS verification failed (${e.code})`;
      return new NotSentError(what, null);
    }
    if (typeof e.message === 'string' && /^could not resolve /.test(e.message)) return new NotSentError('the host name could not be resolved', null);
  }
  return null;
}

export async function postJson(options: { dispatcher: Dispatcher; url: URL; headers: Record<string, string>; body: unknown; signal: AbortSignal }): Promise<ProviderAnswer> {
  const { dispatcher, url, headers, body, signal } = options;
  if (signal.aborted) throw new NoAnswerError('cancelled');
  const cancel = deadlineSignal([signal], PROVIDER_TIMEOUT_MS);
  try {
    const response = await request(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json', ...headers },
      body: JSON.stringify(body),
      dispatcher,
      headersTimeout: PROVIDER_TIMEOUT_MS,
      bodyTimeout: PROVIDER_TIMEOUT_MS,
      signal: cancel.signal,
    });
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of response.body) {
      size += chunk.length;
      if (size > MAX_ANSWER_BYTES) {
        response.body.destroy();
        return { status: response.statusCode, json: undefined };
      }
      chunks.push(chunk);
    }
    let json: unknown;
    try {
      json = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      json = undefined;
    }
    return { status: response.statusCode, json };
  } catch (error) {
    const notSent = notSentDetail(error);
    if (notSent) throw notSent;
    if (signal.aborted) throw new NoAnswerError('cancelled');
    throw new NoAnswerError('transport');
  } finally {
    cancel.release();
  }
}

/** The reason for a non-2xx answer (401/403 are handled before: they are configuration). */
export function statusReason(status: number): FailureReason {
  if (status === 429) return 'rate-limited';
  if (status === 408) return 'transport';
  if (status >= 500) return 'provider-unavailable';
  return 'request-rejected';
}

export function isRetryable(reason: string | null): boolean {
  return reason === 'rate-limited' || reason === 'provider-unavailable' || reason === 'transport';
}

/** Fixed classification texts: the Completion `message` and the thrown errors' wording. */
export const REASON_MESSAGES: Record<string, string> = {
  truncated: 'the output stopped at the token limit',
  'content-filtered': 'the provider withheld the output (safety or content filter)',
  'invalid-output': 'the provider answered with something that is not a usable completion',
  'rate-limited': 'the provider rate-limited the request; retry later',
  'request-rejected': 'the provider rejected the request as invalid',
  'provider-unavailable': 'the provider is unavailable or failed; retry later',
  transport: 'the connection failed or timed out after the request was sent',
  cancelled: 'the run ended before the provider answered',
  incomplete: 'the provider stopped before finishing the answer',
};
