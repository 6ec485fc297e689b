// A Package republished while the server runs: the next run uses the store's new code.
// The real `svc build publish-local` (through runCli in this process) writes into the
// server's fallback store; the server is never told (no server-side install), yet a version
// that adds a check() is enforced on the very next run, and a version that removes it stops
// enforcing it. The Blueprint is unchecked (typecheck: off): the runs are about the code.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import YAML from 'yaml';
import { startServer, tempDir, type TestServer } from '../harness';
import { START_TIMEOUT_MS, svcInProcess } from '../support/cli';
import { manifest, writeFiles } from '../support/packages';

const project = (version: string, body: string) => ({
  'svc.toml': manifest([{ name: '@acme/greeter', version }]),
  'docs/readme.md': '# greeter\n',
  'src/lib.ts': `import { check } from "svc:security";

/**
 * Greets someone.
 * @param who The name.
 * @returns The greeting.
 * @capability acme.com/greet { who }
 */
export function greet(who: string): string {
${body}
}
`,
});

describe('a Package republished with publish-local while the server runs', () => {
  let server: TestServer;
  let home: string;
  const publish = async (version: string, body: string) => {
    const result = await svcInProcess(['build', 'publish-local'], { cwd: writeFiles(tempDir(), project(version, body)), env: { SVC_HOME: home } });
    assert.equal(result.code, 0, result.stdout + result.stderr);
  };
  const run = () => server.request('POST', '/v1/execute', { token: server.userToken, body: { blueprint: 'greeter', code: 'import { greet } from "@acme/greeter";\nexport function main() { return greet("mallory"); }' } });

  before(async () => {
    home = tempDir();
    await publish('0.1.0', '  return "hello " + who + " from 0.1.0";');
    server = await startServer({ home, timeoutMs: START_TIMEOUT_MS });
    const registered = await server.request('POST', '/v1/blueprints', {
      body: { yaml: YAML.stringify({ name: 'greeter', default: 'deny', typecheck: 'off', packages: ['@acme/greeter'], permissions: { main: [{ capability: 'acme.com/greet', filter: 'who != "mallory"', action: 'allow' }] } }) },
    });
    assert.ok(registered.status < 300, registered.text);
  });
  after(async () => server?.stop());

  test('each run executes the code the store holds now', async () => {
    const first = await run();
    assert.equal(first.json.error, null, first.text);
    assert.equal(first.json.result, 'hello mallory from 0.1.0');
    // Cached now: a second run still answers from 0.1.0.
    assert.equal((await run()).json.result, 'hello mallory from 0.1.0');

    await publish('0.2.0', '  check("acme.com/greet", { who });\n  return "hello " + who + " from 0.2.0";');
    const checked = await run();
    assert.equal(checked.json.error?.kind, 'permission_denied', checked.text);
    assert.ok(server.audit({ type: 'decision', capability: 'acme.com/greet', decision: 'deny' }).length >= 1, 'the new check() was judged');

    await publish('0.3.0', '  return "hello " + who + " from 0.3.0";');
    const third = await run();
    assert.equal(third.json.error, null, third.text);
    assert.equal(third.json.result, 'hello mallory from 0.3.0');
  });
});
