// A large program's type check (seconds of checker time) does not hold up another token's
// small new program: programs over `typecheck_large_program` are checked on a thread of
// their own; and on each thread tokens take turns, so many programs of one token delay
// another token's by one check at most. Proven by order, not by time: the small program's
// answer comes while checks sent before it have not answered yet.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { registerBlueprint } from '../support/sessions';
import { eventually } from '../support/wait';
import { newToken, startServer, tempDir, type TestServer } from '../harness';

// 3,000 functions (was 5,000): well past the 64 KiB of a large program, and still a check
// many times a small program's; the checking time goes with the size. (2,000 failed once
// in eight runs at load 25.) Both tests still fail without the lane and without the turns.
/** About 170 KiB of functions, ending in a name that does not resolve (a blocking error): it answers right after its check. */
const LARGE = `${Array.from({ length: 3_000 }, (_, i) => `function f${i}(a: number): number { return a * ${i} + 1; }`).join('\n')}
export function main() { return largeMissing; }`;
const SMALL = 'export function main() { return smallMissing; }';
/** About 170 KiB ending in a type error (an ordinary-thread program where the threshold is 2 MiB); `salt` makes each new. */
const medium = (salt: number) => `${Array.from({ length: 3_000 }, (_, i) => `function g${i}(a: number): number { return a * ${i} + ${salt}; }`).join('\n')}
export function main() { return mediumMissing${salt}; }`;

/** A server with a second user token, `other`. */
async function startWithOther(args: string[] = []): Promise<{ server: TestServer; other: string }> {
  const home = tempDir();
  const other = newToken();
  fs.writeFileSync(path.join(home, 'other.token'), `${other}\n`);
  const server = await startServer({ home, args, runners: 1, config: { api_tokens: [{ name: 'other', role: 'user', token_file: path.join(home, 'other.token') }] } });
  await registerBlueprint(server, 'name: open\ndefault: allow\n');
  return { server, other };
}

describe('type checks of large programs', () => {
  let server: TestServer;
  let other: string;
  before(async () => {
    ({ server, other } = await startWithOther(['--typecheck-budget', '300']));
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
    assert.equal(first.reply.json.error?.kind, 'compile_error', `${JSON.stringify(first.reply.json.warnings)} ${first.reply.text.slice(0, 300)}`);
    assert.match(first.reply.json.error.message, /Cannot find name 'smallMissing'/);
    const late = (await large).reply;
    assert.equal(late.json.error?.kind, 'compile_error', late.text.slice(0, 500));
    assert.match(late.json.error.message, /Cannot find name 'largeMissing'/);
  });
});

describe('type checks of many programs from one token', () => {
  let server: TestServer;
  let other: string;
  before(async () => {
    // Every program here is an ordinary one: the turns are those of one checker thread.
    ({ server, other } = await startWithOther(['--typecheck-large-program', '2048', '--typecheck-budget', '300']));
  });
  after(async () => {
    await server.stop();
  });

  const oneOff = (token: string, code: string) => server.request('POST', '/v1/execute', { token, body: { blueprint: 'open', code } });

  test("another token's queued programs do not all go before a small program sent after them", async () => {
    const before = server.audit({ event: 'started', principal: 'other' }).length;
    const queued = [1, 2, 3].map((salt) => oneOff(other, medium(salt)).then((reply) => ({ which: `medium ${salt}`, reply })));
    await eventually('the three runs to start', () => server.audit({ event: 'started', principal: 'other' }).length >= before + 3);
    const small = oneOff(server.userToken, SMALL).then((reply) => ({ which: 'small', reply }));

    const order: string[] = [];
    await Promise.all(
      [...queued, small].map((answer) =>
        answer.then(({ which, reply }) => {
          // The warnings say why, when a program ran unchecked (its checker was lost).
          assert.equal(reply.json.error?.kind, 'compile_error', `${which}: ${JSON.stringify(reply.json.warnings)} ${reply.text.slice(0, 300)}`);
          order.push(which);
        }),
      ),
    );
    // Checked one at a time, tokens taking turns: only the check running when it came (a
    // second or more of checker time each) goes before the small program; first come, first
    // served put it behind all three. Only if all three were checked before it arrived would
    // it be last either way.
    assert.notEqual(order.indexOf('small'), order.length - 1, `answers came in the order ${order.join(', ')}`);
  });
});
