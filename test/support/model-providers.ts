// Stand-ins for the model providers under their real host names (see stand-in.ts), answering
// in each API's documented shapes. Behaviour is picked by markers in the prompt or text so
// one server serves every scenario:
//   #401 #429 #500 #503 #400   answer that HTTP status with the provider's error body
//   #drop                      drop the connection after the request arrived
//   #truncate #filter          stop at the token limit / withheld by the content filter
//   #nousage                   answer without usage figures
//   #usage=N                   report N input and N output tokens
//   #json <text>               answer with <text> verbatim (for typed calls)
//   #hold                      hold the answer until `release()` (concurrency tests)
// Anything else is answered with `echo:<prompt>`.
import { startStandIn, type StandIn, type StandInReply, type StandInRequest } from './stand-in';

export const HOSTS = {
  anthropic: 'api.anthropic.com',
  openai: 'api.openai.com',
  google: 'generativelanguage.googleapis.com',
  compatible: 'llm.gateway-example.com',
} as const;

export type Kind = keyof typeof HOSTS;

/** The text a chat request carries, in each provider's request shape. */
export function promptOf(kind: Kind, request: StandInRequest): string {
  const body = request.json ?? {};
  if (kind === 'google') return body.contents?.[0]?.parts?.[0]?.text ?? '';
  return body.messages?.[0]?.content ?? '';
}

/** The texts of an embedding request. */
export function textsOf(kind: Kind, request: StandInRequest): string[] {
  const body = request.json ?? {};
  if (kind === 'google') return (body.requests ?? []).map((r: any) => r.content?.parts?.[0]?.text ?? '');
  return body.input ?? [];
}

const errorBodies: Record<Kind, (status: number) => unknown> = {
  anthropic: (status) => ({ type: 'error', error: { type: status === 429 ? 'rate_limit_error' : status === 401 ? 'authentication_error' : status >= 500 ? 'api_error' : 'invalid_request_error', message: 'stand-in error' } }),
  openai: (status) => ({ error: { message: 'stand-in error', type: status === 429 ? 'rate_limit_exceeded' : 'invalid_request_error', param: null, code: null } }),
  compatible: (status) => ({ error: { message: 'stand-in error', type: 'error', code: status } }),
  google: (status) => ({ error: { code: status, message: 'stand-in error', status: status === 429 ? 'RESOURCE_EXHAUSTED' : status === 401 ? 'UNAUTHENTICATED' : status >= 500 ? 'INTERNAL' : 'INVALID_ARGUMENT' } }),
};

function usageFrom(text: string): { input: number; output: number } | null {
  if (text.includes('#nousage')) return null;
  const n = /#usage=(\d+)/.exec(text);
  return n ? { input: Number(n[1]), output: Number(n[1]) } : { input: 12, output: 7 };
}

function chatReply(kind: Kind, prompt: string): StandInReply {
  const status = /#(401|429|500|503|400)\b/.exec(prompt);
  if (status) return { status: Number(status[1]), json: errorBodies[kind](Number(status[1])) };
  if (prompt.includes('#drop')) return { destroy: true };
  const json = /#json (.*)$/s.exec(prompt);
  const text = json ? json[1].split('\n\n')[0] : `echo:${prompt}`;
  const truncated = prompt.includes('#truncate');
  const filtered = prompt.includes('#filter');
  const usage = usageFrom(prompt);
  switch (kind) {
    case 'anthropic':
      return {
        json: {
          id: 'msg_01XFDUDYJgAACzvnptvVoYEL',
          type: 'message',
          role: 'assistant',
          model: 'claude-haiku-4-5',
          content: filtered ? [] : [{ type: 'text', text }],
          stop_reason: truncated ? 'max_tokens' : filtered ? 'refusal' : 'end_turn',
          stop_sequence: null,
          ...(usage ? { usage: { input_tokens: usage.input, output_tokens: usage.output } } : {}),
        },
      };
    case 'google':
      return {
        json: {
          candidates: [{ content: { role: 'model', parts: filtered ? [] : [{ text }] }, finishReason: truncated ? 'MAX_TOKENS' : filtered ? 'SAFETY' : 'STOP', index: 0 }],
          ...(usage ? { usageMetadata: { promptTokenCount: usage.input, candidatesTokenCount: usage.output, totalTokenCount: usage.input + usage.output } } : {}),
          modelVersion: 'gemini-2.5-flash',
        },
      };
    default:
      return {
        json: {
          id: 'chatcmpl-B9MBs8CjcvOU2jLn4n570S5qMJKcT',
          object: 'chat.completion',
          created: 1741569952,
          model: 'gpt-5-mini',
          choices: [{ index: 0, message: { role: 'assistant', content: filtered ? null : text, refusal: null }, finish_reason: truncated ? 'length' : filtered ? 'content_filter' : 'stop' }],
          ...(usage ? { usage: { prompt_tokens: usage.input, completion_tokens: usage.output, total_tokens: usage.input + usage.output } } : {}),
        },
      };
  }
}

/** A unit-free vector for a text: deterministic, never all zero, `dimensions` long. */
export function rawVector(text: string, dimensions: number): number[] {
  return Array.from({ length: dimensions }, (_, i) => ((text.charCodeAt(i % Math.max(1, text.length)) || 7) % 13) + i + 1);
}

function embeddingReply(kind: Kind, request: StandInRequest): StandInReply {
  const texts = textsOf(kind, request);
  const joined = texts.join(' ');
  const status = /#(401|429|500|503|400)\b/.exec(joined);
  if (status) return { status: Number(status[1]), json: errorBodies[kind](Number(status[1])) };
  if (joined.includes('#drop')) return { destroy: true };
  const dimensions = joined.includes('#wrongdims') ? 2 : kind === 'google' ? request.json.requests[0].outputDimensionality : request.json.dimensions ?? 3;
  if (kind === 'google') return { json: { embeddings: texts.map((t) => ({ values: rawVector(t, dimensions) })) } };
  const usage = usageFrom(joined);
  return {
    json: {
      object: 'list',
      // Out of order on purpose: clients must use `index`.
      data: texts.map((t, index) => ({ object: 'embedding', index, embedding: rawVector(t, dimensions) })).reverse(),
      model: request.json.model,
      ...(usage ? { usage: { prompt_tokens: usage.input, total_tokens: usage.input } } : {}),
    },
  };
}

export interface ProviderStandIn extends StandIn {
  kind: Kind;
  /** Releases every request held by #hold. */
  release(): void;
  /** Hold policy for #hold requests: release the oldest when `limit` are waiting, or all once `total` have arrived. */
  holdPolicy(limit: number, total: number): void;
}

export async function startProvider(kind: Kind): Promise<ProviderStandIn> {
  const held: Array<() => void> = [];
  let policy = { limit: Infinity, total: Infinity };
  let arrivals = 0;
  const standIn = (await startStandIn([HOSTS[kind]])) as ProviderStandIn;
  standIn.kind = kind;
  standIn.release = () => held.splice(0).forEach((go) => go());
  standIn.holdPolicy = (limit, total) => {
    policy = { limit, total };
    arrivals = 0;
  };
  standIn.handle(async (request) => {
    const embedding = /embed/i.test(request.path);
    const text = embedding ? textsOf(kind, request).join(' ') : promptOf(kind, request);
    if (text.includes('#hold')) {
      arrivals++;
      const wait = new Promise<void>((resolve) => held.push(resolve));
      if (arrivals >= policy.total) standIn.release();
      else if (held.length >= policy.limit) held.shift()!();
      await wait;
    }
    return embedding ? embeddingReply(kind, request) : chatReply(kind, text);
  });
  return standIn;
}
