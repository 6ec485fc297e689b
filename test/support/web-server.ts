// The server the web-platform test files share: one runner, a Blueprint `web` that allows
// nothing beyond the defaults, and the execute result of a program sent to it.
import { before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type TestServer } from '../harness';

export interface WebServer {
  /** The execute answer's JSON (the HTTP status must be 200). */
  execute(code: string): Promise<any>;
  /** The run's result parsed as JSON (the run must have succeeded). */
  result(code: string): Promise<any>;
}

/** Starts the server before the file's tests and stops it after them. */
export function webServer(): WebServer {
  let server: TestServer | undefined;
  before(async () => {
    server = await startServer({ runners: 1 });
    const created = await server.request('POST', '/v1/blueprints', { body: { yaml: 'name: web\n' } });
    assert.ok(created.status < 300, created.text);
  });
  after(async () => server?.stop());
  const execute = async (code: string): Promise<any> => {
    assert.ok(server, 'the web server starts before the tests');
    const reply = await server.request('POST', '/v1/execute', { token: server.userToken, body: { blueprint: 'web', code } });
    assert.equal(reply.status, 200, reply.text);
    return reply.json;
  };
  return {
    execute,
    async result(code) {
      const reply = await execute(code);
      assert.equal(reply.error, null, JSON.stringify(reply.error));
      return JSON.parse(reply.result);
    },
  };
}
