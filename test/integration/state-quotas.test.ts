// svc:session state per token: one token filling its sessions' state is refused past its own
// budget (`max_session_state_memory_per_token`), and once the server-wide budget
// (`max_session_state_memory`) is full, another token still stores up to its fair share of
// it. Refusals name the budget, its setting and the use, and store nothing.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { TestServer } from '../harness';
import { registerBlueprint } from '../support/sessions';
import { metricValue, startWithOther } from '../support/tenants';

/** Stores `count` values of 100,000 characters (about 200 kB each) under `prefix`0.., stopping at the first refusal. */
const FILL = (prefix: string, count: number) => `import * as session from "svc:session";
export function main() {
  let stored = 0;
  for (let i = 0; i < ${count}; i++) {
    try { session.set("${prefix}" + i, "${prefix}".repeat(100000)); stored++; }
    catch (e) { return { stored, name: e.name, message: e.message, kept: session.has("${prefix}" + i) }; }
  }
  return { stored };
}`;
const READ = (key: string) => `import * as session from "svc:session";\nexport function main() { const v = session.get("${key}"); return typeof v === "string" ? v.length : null; }`;

describe('svc:session state per token', () => {
  let server: TestServer;
  let other: string;
  before(async () => {
    // 1 MiB for the whole server; the per-token budget is left at its default (the same).
    ({ server, other } = await startWithOther({ args: ['--max-session-state-memory', '1'] }));
    await registerBlueprint(server, 'name: open\ndefault: allow\ntypecheck: off\n'); // types stripped, not checked: no program here is about types
  });
  after(async () => server?.stop());

  const open = async (token: string) => (await server.request('POST', '/v1/sessions', { token, body: { blueprint: 'open' } })).json.session_id as string;
  const run = async (token: string, session: string, code: string) => {
    const reply = await server.request('POST', `/v1/sessions/${session}/execute`, { token, body: { code } });
    assert.equal(reply.status, 200, reply.text);
    assert.equal(reply.json.error, null, reply.text.slice(0, 500));
    return JSON.parse(reply.json.result);
  };

  test("one token filling the server's state budget does not stop another token from storing its fair share; each refusal names the budget and the use", async () => {
    const attacker = [await open(server.userToken), await open(server.userToken)];
    const first = await run(server.userToken, attacker[0], FILL('a', 3));
    assert.deepEqual(first, { stored: 3 });
    const second = await run(server.userToken, attacker[1], FILL('b', 10));
    assert.equal(second.stored, 2, 'five values of 200 kB fill 1 MiB across the token\'s sessions');
    assert.equal(second.name, 'QuotaExceededError');
    assert.match(second.message, /the server's session-state budget \(max_session_state_memory, 1048576 bytes across all sessions\) would be exceeded: sessions hold 10\d{5} bytes, 10\d{5} of them this token's, past its fair share of 1048576; nothing was stored/);
    assert.equal(second.kept, false, 'the refused value was not stored');
    const used = await metricValue(server, 'svc_token_quota_use{token="harness",quota="max_session_state_memory_per_token"}');
    assert.ok(used !== null && used > 1_000_000 && used <= 1_048_576, String(used));

    // The server-wide budget is full; the other token holds nothing, so it stores up to its share (half).
    const victim = await open(other);
    const theirs = await run(other, victim, FILL('v', 10));
    assert.equal(theirs.stored, 2);
    assert.match(theirs.message, /the server's session-state budget \(max_session_state_memory, 1048576 bytes across all sessions\) would be exceeded: sessions hold \d+ bytes, 400\d{3} of them this token's, past its fair share of 524288; nothing was stored/);
    assert.equal(await run(other, victim, READ('v1')), 100000, "the other token's state is there");
    assert.equal(await run(server.userToken, attacker[0], READ('a0')), 100000, "and so is the first token's");
    assert.equal(await metricValue(server, 'svc_token_quota_refusals_total{token="other",quota="session.write"}'), 1);

    // Ending the first token's sessions frees its part.
    for (const id of attacker) assert.equal((await server.request('DELETE', `/v1/sessions/${id}`, { token: server.userToken })).status, 204);
    assert.equal(await metricValue(server, 'svc_token_quota_use{token="harness",quota="max_session_state_memory_per_token"}'), null);
    assert.deepEqual(await run(other, victim, FILL('w', 2)), { stored: 2 });
  });
});
