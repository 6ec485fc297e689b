// @svc/typesafe installed into a real server and called from programs, against a loopback
// stand-in playing api.typesafe.ai: the request body System One receives (state, model,
// typed questions) with the bearer key, the answers returned as plain objects, the missing
// key, a denied capability (no request sent) and the service's error answers.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { blueprintYaml, derivedRequires, startCurated, type Curated, type CuratedOptions } from '../../support/curated';
import type { StandInRequest, StandInReply } from '../../support/stand-in';

const HOST = 'api.typesafe.ai';
const KEY = 'typesafe-test-key';

type Question = { type: 'noul' | 'choice' | 'score'; instructions: unknown; criteria?: unknown };

// Answers shaped as the API documents them: noul {noul}, choice {choice, confidence,
// probabilities}, score {score, confidence, legend, probabilities} keyed by level index.
function answerFor(question: Question): unknown {
  if (question.type === 'noul') return { type: 'noul', noul: 0.73 };
  if (question.type === 'choice') {
    const names = Object.keys(question.criteria as Record<string, unknown>);
    const probabilities = Object.fromEntries(names.map((n, i) => [n, i === 0 ? 0.9 : 0.1 / (names.length - 1)]));
    return { type: 'choice', choice: names[0], confidence: 0.9, probabilities };
  }
  const levels = question.criteria as string[];
  return {
    type: 'score',
    score: 1.6,
    confidence: 0.7,
    legend: Object.fromEntries(levels.map((l, i) => [String(i), l])),
    probabilities: Object.fromEntries(levels.map((_, i) => [String(i), i === levels.length - 1 ? 0.7 : 0.3 / (levels.length - 1)])),
  };
}

function handler(request: StandInRequest): StandInReply {
  if (request.method !== 'POST' || request.path !== '/v1/systemone') return { status: 404, json: { error: { message: 'Not found' } } };
  const state = request.json?.state;
  const failing = typeof state === 'string' ? /^fail-(\d+)$/.exec(state) : null;
  if (failing) {
    const status = Number(failing[1]);
    const headers: Record<string, string> = { 'x-typesafe-request-id': `req-${status}`, ...(status === 429 ? { 'retry-after': '3' } : {}) };
    return { status, headers, json: { error: { type: 'error', message: `failure ${status}` } } };
  }
  if (state === 'wrong-answer') return { json: { model: 'jev-1', answers: { answer: { type: 'choice', choice: 'x' } } } };
  const questions = request.json.questions as Record<string, Question>;
  const answers = Object.fromEntries(Object.entries(questions).map(([k, q]) => [k, answerFor(q)]));
  return { headers: { 'x-typesafe-request-id': 'req-ok' }, json: { model: 'jev-1.13', answers, usage: { input_tokens: 42, output_tokens: 3 } } };
}

const catching = (call: string) => `import { noul, choice, score, batch, noulQuestion, choiceQuestion, scoreQuestion } from "@svc/typesafe";
export function main() {
  try { return { value: ${call} }; }
  catch (e: any) { return { name: e.name, code: e.code ?? null, status: e.status ?? null, retryAfterSeconds: e.retryAfterSeconds ?? null, requestId: e.requestId ?? null, message: e.message }; }
}`;

describe('@svc/typesafe against a System One stand-in', () => {
  let c: Curated;
  const options: CuratedOptions = {
    package: '@svc/typesafe',
    hosts: [HOST],
    secret: 'TYPESAFE_AI_KEY',
    main: [{ capability: 'typesafe.ai/systemone' }],
    handler,
  };
  const secrets = { TYPESAFE_AI_KEY: KEY };

  before(async () => {
    c = await startCurated(options);
    const yaml = blueprintYaml({ ...options, blueprint: 'typesafe-denied', main: [] }, derivedRequires(c.home, options.package));
    const registered = await c.server.request('POST', '/v1/blueprints', { body: { yaml } });
    assert.ok(registered.status < 300, registered.text);
  });
  after(async () => {
    await c?.close();
  });

  test('the build derived exactly the requires its readme documents', () => {
    assert.deepEqual(derivedRequires(c.home, '@svc/typesafe'), [
      { capability: 'http.post', filter: 'host == "api.typesafe.ai" and path == "/v1/systemone"' },
      { capability: 'secrets.get', filter: 'name == "TYPESAFE_AI_KEY"' },
    ]);
  });

  test('noul POSTs {state, model, questions} with the bearer key and returns the probability of yes', async () => {
    const before = c.api.requests.length;
    const out = await c.run(catching('noul("Payouts failed for 3 days!", "Does this convey urgency?", { true: "needs action today", false: "can wait" })'), { secrets });
    const sent = c.api.requests.slice(before);
    assert.equal(sent.length, 1);
    assert.equal(sent[0].method, 'POST');
    assert.equal(sent[0].path, '/v1/systemone');
    assert.equal(sent[0].headers.authorization, `Bearer ${KEY}`);
    assert.deepEqual(sent[0].json, {
      state: 'Payouts failed for 3 days!',
      model: 'jev-latest',
      questions: { answer: { type: 'noul', instructions: 'Does this convey urgency?', criteria: { true: 'needs action today', false: 'can wait' } } },
    });
    assert.equal(out.value.value, 0.73);
    assert.ok(!out.result!.includes(KEY));
  });

  test('choice takes options as an object or a Map and returns a plain-object answer', async () => {
    const before = c.api.requests.length;
    const out = await c.run(catching('choice({ message: "charged twice" }, "Which team?", new Map<string, any>([["billing", "Refunds"], ["technical", ["Bugs"]], ["other", null]]), { model: "jev-1.13" })'), { secrets });
    const sent = c.api.requests.slice(before);
    assert.deepEqual(sent[0].json, {
      state: { message: 'charged twice' },
      model: 'jev-1.13',
      questions: { answer: { type: 'choice', instructions: 'Which team?', criteria: { billing: 'Refunds', technical: ['Bugs'], other: null } } },
    });
    assert.deepEqual(out.value.value, { type: 'choice', choice: 'billing', confidence: 0.9, probabilities: { billing: 0.9, technical: 0.05, other: 0.05 } });
  });

  test('score sends the ordered levels and returns score, confidence, legend and probabilities', async () => {
    const before = c.api.requests.length;
    const out = await c.run(catching('score("Export crashes in Safari", "How severe?", ["cosmetic", "degraded", "blocking"])'), { secrets });
    assert.deepEqual(c.api.requests[before].json.questions.answer, { type: 'score', instructions: 'How severe?', criteria: ['cosmetic', 'degraded', 'blocking'] });
    assert.deepEqual(out.value.value, { type: 'score', score: 1.6, confidence: 0.7, legend: { '0': 'cosmetic', '1': 'degraded', '2': 'blocking' }, probabilities: { '0': 0.15, '1': 0.15, '2': 0.7 } });
  });

  test('batch asks several typed questions in one request and returns answers by key with usage', async () => {
    const before = c.api.requests.length;
    const out = await c.run(
      catching('batch({ state: "Refund please, charged twice", questions: { refund: noulQuestion("Asking for money back?"), team: choiceQuestion("Which team?", { billing: "Refunds", other: null }), anger: scoreQuestion("How upset?", ["calm", "upset"]) } })'),
      { secrets },
    );
    const sent = c.api.requests.slice(before);
    assert.equal(sent.length, 1);
    assert.deepEqual(Object.keys(sent[0].json.questions), ['refund', 'team', 'anger']);
    const value = out.value.value;
    assert.equal(value.model, 'jev-1.13');
    assert.deepEqual(value.usage, { inputTokens: 42, outputTokens: 3 });
    assert.equal(value.requestId, 'req-ok');
    assert.deepEqual(value.answers.refund, { type: 'noul', noul: 0.73 });
    assert.equal(value.answers.team.choice, 'billing');
    assert.equal(value.answers.anger.type, 'score');
  });

  test('an answer of the wrong shape is invalid_response', async () => {
    const out = await c.run(catching('noul("wrong-answer", "Q?")'), { secrets });
    assert.equal(out.value.name, 'TypeSafeError');
    assert.equal(out.value.code, 'invalid_response');
  });

  test('without the key bound, every call throws missing_credentials and sends nothing', async () => {
    const before = c.api.requests.length;
    const out = await c.run(catching('noul("state", "Q?")'));
    assert.equal(out.value.name, 'TypeSafeError');
    assert.equal(out.value.code, 'missing_credentials');
    assert.equal(out.value.status, 0);
    assert.equal(c.api.requests.length, before);
  });

  test('bad arguments throw invalid_argument naming the field, before any request', async () => {
    const before = c.api.requests.length;
    const out = await c.run(catching('score("s", "How bad?", ["only one"])'), { secrets });
    assert.equal(out.value.code, 'invalid_argument');
    assert.match(out.value.message, /criteria of a score/);
    const batchOut = await c.run(catching('batch({ state: "s", questions: { a: { type: "maybe" as any, instructions: "?" } } })'), { secrets });
    assert.match(batchOut.value.message, /questions\.a\.type must be noul, choice or score/);
    assert.equal(c.api.requests.length, before);
  });

  test('a program without typesafe.ai/systemone is denied and nothing is sent', async () => {
    const before = c.api.requests.length;
    const reply = await c.server.request('POST', '/v1/execute', {
      token: c.server.userToken,
      body: { blueprint: 'typesafe-denied', code: 'import { noul } from "@svc/typesafe";\nexport function main() { return noul("s", "Q?"); }', secrets },
    });
    assert.equal(reply.status, 200, reply.text);
    assert.equal(reply.json.error?.kind, 'permission_denied', reply.text);
    assert.match(reply.json.error.message, /caller=main capability=typesafe\.ai\/systemone/);
    assert.equal(c.api.requests.length, before);
  });

  test("the service's error answers map to codes, with request id and Retry-After", async () => {
    const expected: Array<[number, string]> = [
      [401, 'unauthorized'],
      [403, 'forbidden'],
      [404, 'not_found'],
      [429, 'rate_limited'],
      [500, 'http_error'],
    ];
    for (const [status, code] of expected) {
      const out = await c.run(catching(`noul("fail-${status}", "Q?")`), { secrets });
      assert.equal(out.value.name, 'TypeSafeError', String(status));
      assert.equal(out.value.code, code, String(status));
      assert.equal(out.value.status, status);
      assert.equal(out.value.requestId, `req-${status}`);
      assert.match(out.value.message, new RegExp(`failure ${status}`));
      if (status === 429) assert.equal(out.value.retryAfterSeconds, 3);
    }
  });
});
