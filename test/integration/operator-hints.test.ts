// Messages for the operator, not the agent: a destination the outbound block refuses is
// logged with the setting that would allow it, an MCP server refused at discovery writes
// an egress_guard decision record, a policy denial's audit record names the rule that
// would allow it, and `svc run` prints both as hints, while the program's own messages
// stay as the contract says. No --allow-localhost here: names point at loopback.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import { startServer, tempDir, type TestServer } from '../harness';
import { runSvc, START_TIMEOUT_MS } from '../support/cli';
import { startStandIn, type StandIn } from '../support/stand-in';

const API = 'api.example.com';
const MCP = 'mcp.example.com';

describe('operator hints', () => {
  let server: TestServer;
  let far: StandIn;
  const run = async (code: string) => {
    const file = path.join(tempDir(), 'job.ts');
    fs.writeFileSync(file, code);
    return runSvc(['run', file, '--remote', '--blueprint', 'hints'], { env: { SVC_SERVER_TOKEN: server.adminToken, SVC_SERVER_URL: server.url } });
  };

  before(async () => {
    far = await startStandIn([API, MCP], () => ({ status: 200, json: {} }));
    server = await startServer({ runners: 1, args: ['--add-host', `${API}=127.0.0.1`, '--add-host', `${MCP}=127.0.0.1`], timeoutMs: START_TIMEOUT_MS });
    const yaml = YAML.stringify({
      name: 'hints',
      mcp: { tracker: { url: `${far.origin(MCP)}/mcp` } },
      permissions: { main: [{ capability: 'http.get', filter: `host == "${API}"`, action: 'allow' }, { capability: 'mcp.tracker', action: 'allow' }] },
    });
    const registered = await server.request('POST', '/v1/blueprints', { body: { yaml } });
    assert.ok(registered.status < 300, registered.text);
  });
  after(async () => {
    await server?.stop();
    far?.close();
  });

  test('an MCP server refused at discovery writes an egress_guard decision record naming the setting', async () => {
    const reply = await server.request('POST', '/v1/execute', { token: server.userToken, body: { blueprint: 'hints', code: 'import tracker from "@mcp/tracker";\nexport function main() { return typeof tracker; }' } });
    assert.equal(reply.json.error?.kind, 'compile_error', reply.text);
    assert.ok(reply.json.discovery_warnings?.some((w: string) => w.includes('blocked by network policy')), reply.text);
    const [record] = server.audit({ type: 'decision', capability: 'network.egress' });
    assert.ok(record, 'a decision record was written');
    assert.equal(record.caller, 'server');
    assert.equal(record.decision, 'deny');
    assert.equal(record.source, 'egress_guard');
    assert.equal(record.reason, 'outbound destination blocked');
    assert.equal(record.blueprint, 'hints');
    assert.equal(record['context.host'], MCP);
    assert.match(record.allowed_by, /network\.allow_localhost \(--allow-localhost/);
    assert.equal(far.requests.length, 0, 'nothing reached the far end');
  });

  test('svc run and the server log name the setting that would let a blocked call through', async () => {
    const result = await run(`import { get } from "svc:http";\nexport function main() { return get("${far.origin(API)}/data").status; }`);
    assert.equal(result.code, 1, result.stdout + result.stderr);
    assert.match(result.stderr, /^error: .*blocked by network policy: api\.example\.com resolves only to loopback address space/m);
    assert.match(result.stderr, /^hint: api\.example\.com was refused by the outbound address block; the server's setting network\.allow_localhost \(--allow-localhost, SVC_ALLOW_LOCALHOST=1\) or network\.allow_ip/m);
    const logged = server.logs({ msg: 'outbound connection blocked', host: API });
    assert.ok(logged.length >= 1, server.lines().filter((l) => l.includes('blocked')).join('\n'));
    assert.equal(logged[0].kinds, 'loopback');
    assert.match(logged[0].allowed_by, /network\.allow_localhost/);
    assert.equal(far.requests.length, 0);
  });

  test('a policy denial: the audit record and svc run show the rule that would allow it; the program\'s message does not', async () => {
    const code = 'import * as fs from "svc:fs";\nexport function main() { fs.write("/out.txt", "x"); }';
    const result = await run(code);
    assert.equal(result.code, 1, result.stdout + result.stderr);
    assert.match(result.stderr, /^hint: the Blueprint denied it; a rule that would allow it: permissions\.main: - \{capability: fs\.write, action: allow\}/m);
    const [denial] = server.audit({ type: 'decision', capability: 'fs.write', decision: 'deny' });
    assert.equal(denial.allowed_by, `permissions.main: - {capability: fs.write, filter: 'path == "/out.txt"', action: allow}`);

    const reply = await server.request('POST', '/v1/execute', { token: server.userToken, body: { blueprint: 'hints', code } });
    assert.equal(reply.json.error.kind, 'permission_denied');
    assert.doesNotMatch(reply.json.error.message, /permissions\.main|allowed_by|action: allow/);
  });

  test('a docs lookup for svc:session says why it is unavailable (no session.* rule)', async () => {
    const reply = await server.request('GET', '/v1/blueprints/hints/packages/docs?name=svc:session', { token: server.userToken });
    assert.equal(reply.status, 404, reply.text);
    assert.equal(reply.json.error, 'unknown_package');
    assert.match(reply.json.message, /^svc:session exists but is not available to this Blueprint: no rule in its permissions could allow `session\.read` or `session\.write`/);
    const http = await server.request('GET', '/v1/blueprints/hints/packages/docs?name=svc:http', { token: server.userToken });
    assert.equal(http.status, 200, 'a module the rules can use is documented');
  });
});
