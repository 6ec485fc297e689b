// The example harness runs its tool loop against a real server with the scripted model.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type TestServer } from '../../test/harness';
import { SvcClient } from '../../clients/typescript/src/index.js';
import { runToolLoop, scriptedModel } from './harness';

let server: TestServer;
before(async () => {
  server = await startServer({ timeoutMs: 60_000 });
  const reply = await server.request('POST', '/v1/blueprints', { body: { yaml: 'name: calc\ndefault: allow\nvfs: none\n' } });
  assert.equal(reply.status, 200);
});
after(async () => {
  await server?.stop();
});

test('a scripted model searches, reads docs, recovers from a compile error, runs a program and answers from the last run', async () => {
  const client = new SvcClient({ baseUrl: server.url, token: server.userToken });
  const { session_id } = await client.createSession({ blueprint: 'calc' }).then((r) => (r.ok ? r.value : assert.fail(JSON.stringify(r.error))));
  const result = await runToolLoop({ client, blueprint: 'calc', model: scriptedModel(), task: 'Count the characters of a sentence.', sessionId: session_id });
  assert.deepEqual(result.steps.flatMap((s) => s.toolCalls.map((c) => c.toolName)), ['search', 'docs', 'execute', 'execute', 'last_run']);
  const outputs = result.steps.flatMap((s) => s.toolResults.map((r) => r.output)) as Array<Record<string, unknown>>;
  assert.ok((outputs[0].results as Array<{ name: string }>).some((r) => r.name === 'svc:crypto'));
  assert.equal((outputs[2].error as { kind: string }).kind, 'compile_error');
  assert.equal(outputs[3].result, '17');
  assert.equal(result.text, 'The program returned 17 and logged 3.');
  // The runs happened on the server, in the harness's session.
  const executions = server.audit({ type: 'execution', event: 'finished', session_id });
  assert.ok(executions.length >= 2, 'audit records for the runs');
});
