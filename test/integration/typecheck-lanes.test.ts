// A large program's type check (seconds of checker time) does not hold up another token's
// small new program: programs over `typecheck_large_program` are checked on a thread of
// their own. Proven by order, not by time: the small program's check answers while the
// large one, sent first and already in the checker, has not answered yet.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { registerBlueprint } from '../support/sessions';
import { eventually } from '../support/wait';
import { newToken, startServer, tempDir, type TestServer } from '../harness';

/** About 290 KiB of functions, ending in a type error: it answers right after its check. */
const LARGE = `${Array.from({ length: 5_000 }, (_, i) => `function f${i}(a: number): number { return a * ${i} + 1; }`).join('\n')}
export function main() { const late: number = "large"; return late; }`;
const SMALL = 'export function main() { const n: number = "small"; return n; }';

describe('type checks of large programs', () => {
  let server: TestServer;
  let other: string;
  before(async () => {
    const home = tempDir();
    other = newToken();
    fs.writeFileSync(path.join(home, 'other.token'), `${other}\n`);
    server = await startServer({ home, runners: 1, config: { api_tokens: [{ name: 'other', role: 'user', token_file: path.join(home, 'other.token') }] } });
    await registerBlueprint(server, 'name: open\ndefault: allow\n');
  });
  after(async () => {
    await server.stop();
  });

  const oneOff = (token: string, code: string) => server.request('POST', '/v1/execute', { token, body: { blueprint: 'open', code } });

  test("another token's small program is checked while a large program's check is still running", async () => {
    // The ordinary checker thread is loaded before the race starts.
    const warm = await oneOff(server.userToken, 'export function main() { return 1; }');
    assert.equal(warm.json.error, null, warm.text);

    const large = oneOff(other, LARGE).then((reply) => ({ which: 'large', reply }));
    // The large run is past admission and on its way into the checker before the small one is sent.
    await eventually('the large run to start', () => server.audit({ event: 'started', principal: 'other' }).length > 0);
    const small = oneOff(server.userToken, SMALL).then((reply) => ({ which: 'small', reply }));

    const first = await Promise.race([large, small]);
    assert.equal(first.which, 'small', 'the small program waited for the large program\'s check');
    assert.equal(first.reply.json.error?.kind, 'compile_error', first.reply.text);
    assert.match(first.reply.json.error.message, /"small".*number|number.*"small"|not assignable/);
    const late = (await large).reply;
    assert.equal(late.json.error?.kind, 'compile_error', late.text.slice(0, 500));
    assert.match(late.json.error.message, /not assignable/);
  });
});
