// A one-off run whose client disconnects ends as `cancelled` and frees its runner.
// The server has one runner and no time limit (the contract's default), so a
// `while (true) {}` would spin forever: the program first calls a stand-in (so the test
// knows the run is on the runner), then spins; the test drops the connection. A runner
// hosts many runs, so the next run may finish before the runner has confirmed the cancel:
// the test waits for the cancelled run's record, never for a time.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { fetch as undiciFetch } from 'undici';
import { startServer, type TestServer } from '../harness';
import { serverOptions, startStandIn, type StandIn } from '../support/stand-in';
import { eventually } from '../support/wait';

const HOST = 'spin.example.com';

describe('a one-off run whose client has gone', () => {
  let server: TestServer;
  let standIn: StandIn;
  let reached: () => void;
  const onRunner = new Promise<void>((resolve) => (reached = resolve));

  before(async () => {
    standIn = await startStandIn([HOST], () => {
      reached();
      return { status: 200, body: 'go' };
    });
    const options = serverOptions(standIn);
    server = await startServer({ ...options, args: [...options.args, '--runner-pool-size', '1'], timeoutMs: 60_000 });
    const registered = await server.request('POST', '/v1/blueprints', { body: { yaml: `name: spin\npermissions:\n  main:\n    - {capability: http.get, filter: 'host == "${HOST}"', action: allow}\n` } });
    assert.ok(registered.status < 300, registered.text);
  });
  after(async () => {
    await server?.stop();
    standIn?.close();
  });

  test('is audited as cancelled and its runner takes the next run', { timeout: 120_000 }, async () => {
    const client = new AbortController();
    const code = `import { get } from "svc:http";\nexport function main() { get("${standIn.origin(HOST)}/ready"); while (true) {} }`;
    const pending = undiciFetch(`${server.url}/v1/execute`, {
      method: 'POST',
      headers: { authorization: `Bearer ${server.userToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ blueprint: 'spin', code }),
      signal: client.signal,
    }).catch((error: Error) => error);
    await onRunner;
    client.abort();
    assert.ok((await pending) instanceof Error, 'the client gave up before any answer');

    const next = await server.request('POST', '/v1/execute', { token: server.userToken, body: { blueprint: 'spin', code: 'export function main() { return "next"; }' } });
    assert.equal(next.status, 200);
    assert.equal(next.json.result, 'next', next.text);

    const finishedOthers = () => server.audit({ type: 'execution', event: 'finished', blueprint: 'spin' }).filter((r) => r.execution_id !== next.json.execution_id);
    const spun = await eventually('the cancelled run to be audited', () => (finishedOthers().length > 0 ? finishedOthers() : undefined));
    assert.equal(spun.length, 1, JSON.stringify(spun));
    assert.equal(spun[0].outcome, 'cancelled');
    assert.equal(spun[0].error_class, 'cancelled');
  });
});
