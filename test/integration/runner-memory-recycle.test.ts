// A runner past its memory bound (`runner_memory_recycle`, here 1 MB: every runner is past it
// from its start) is drained, not killed: when one of its runs ends it takes no new runs,
// the runs it hosts finish on it with their own answers, and a fresh runner takes the next
// runs. Two tokens: A's runs push the runner over while B's runs wait on it at a far end
// that answers only when the test releases it; none of B's is lost, run again or reported as
// a crash. Observed through run results, far-end hits and svc_runner_restarts_total; no clocks.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type http from 'node:http';
import { startFarEndTenants, metricValue, type FarEndTenants } from '../support/tenants';
import { eventually } from '../support/wait';

interface Answer {
  result: string | null;
  error: { kind: string; message: string } | null;
}

const HELD = 3;

describe('a runner past runner_memory_recycle drains', () => {
  let env: FarEndTenants;
  const held: http.ServerResponse[] = [];
  let hits = 0;

  before(async () => {
    env = await startFarEndTenants(
      (req, res) => {
        hits++;
        if (req.url === '/hold') held.push(res);
        else res.end(req.url);
      },
      { name: 'recycle', extraYaml: 'typecheck: off\n', args: ['--runner-memory-recycle', '1'] },
    );
  });
  after(() => env.stop());

  const run = async (token: string, code: string): Promise<Answer> => {
    const reply = await env.execute(token, code);
    assert.equal(reply.status, 200, reply.text);
    return reply.json as Answer;
  };
  const restarts = async (reason: string) => (await metricValue(env.server, `svc_runner_restarts_total{reason="${reason}"}`)) ?? 0;

  test("token A's run ends the runner's turn; token B's runs in flight on it all answer right, and A's next runs succeed on new runners", async () => {
    const { server, other, farUrl } = env;
    // B's runs reach the far end and wait there, on the one runner.
    const waiting = Array.from({ length: HELD }, (_, i) => run(other, `export async function main() { const r = await fetch("${farUrl}/hold"); return (await r.text()) + ${i}; }`));
    await eventually('B\'s runs to reach the far end', () => held.length === HELD, { intervalMs: 10, attempts: 6000 });

    // A's run ends on that runner, past its bound: the runner drains (no kill, no crash).
    const first = await run(server.userToken, 'export function main() { return 6 * 7; }');
    assert.deepEqual([first.result, first.error], ['42', null]);
    assert.equal(await restarts('memory'), 1);
    // A's next runs go to fresh runners (each drains in turn after its run: the bound is 1 MB).
    for (let n = 1; n <= 2; n++) {
      const next = await run(server.userToken, `export function main() { return ${n} + 1; }`);
      assert.deepEqual([next.result, next.error], [String(n + 1), null]);
    }
    assert.equal(await restarts('memory'), 3);
    // B's runs are still on the first runner, waiting: the far end saw each once.
    assert.equal(held.length, HELD);
    for (const res of held.splice(0)) res.end('released');
    const answers = await Promise.all(waiting);
    assert.deepEqual(answers.map((a) => [a.result, a.error]), Array.from({ length: HELD }, (_, i) => [`released${i}`, null]));
    // None of B's ran again, none was lost, no runner was replaced as crashed or stuck.
    assert.equal(hits, HELD);
    assert.equal(await restarts('error'), 0);
    assert.equal(await restarts('memory'), 3);
    const after = await run(other, 'export function main() { return "still serving"; }');
    assert.deepEqual([after.result, after.error], ['still serving', null]);
  });
});
