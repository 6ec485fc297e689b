// Run journals through the real server: tapes, `svc replay`, divergence, fork, ownership
// and secrets (issue 38 item 3; server-operations.md §4.9).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type TestServer } from '../harness';

const PROGRAM = `export async function main() {
  const started = Date.now();
  const roll = Math.random();
  const id = crypto.randomUUID();
  await new Promise((resolve) => setTimeout(resolve, 5));
  const made = new Date().getTime() >= started;
  console.log("roll", roll, id.length);
  return { roll, id, made, elapsed: performance.now() >= 0 };
}`;

describe('run journals', () => {
  let server: TestServer;
  before(async () => {
    server = await startServer({ runners: 1 });
    const created = await server.request('POST', '/v1/blueprints', { body: { yaml: 'name: tapes\n' } });
    assert.ok(created.status < 300, created.text);
  });
  after(async () => server?.stop());

  test('a finished run has a tape holding its clock readings, random values and timer order', async () => {
    const run = await server.request('POST', '/v1/execute', { token: server.userToken, body: { blueprint: 'tapes', code: PROGRAM } });
    assert.equal(run.json.error, null, run.text);
    const tape = await server.request('GET', `/v1/runs/${run.json.execution_id}/tape`, { token: server.userToken });
    assert.equal(tape.status, 200, tape.text);
    console.log(JSON.stringify(tape.json, null, 1).slice(0, 3000));
  });
});
