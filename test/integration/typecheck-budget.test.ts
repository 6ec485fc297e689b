// A checker that cannot be used against the server or other programs. One token sends, as
// many at once as it may have checked (all the checker threads but one), a few hundred bytes
// of nested mapped and template-literal types whose check never ends; another token's new
// programs are still checked (a mistake is refused, a working program runs with its warnings)
// while those checks are running, seen on the svc_typechecks_running gauge and by the slow
// runs not having answered yet. A slow program itself is never refused: past the check's
// budget it runs unchecked with a warning saying so. Proven by order, not by time.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { ORDINARY_CHECKERS } from '../../sandbox/typecheck/service';
import { registerBlueprint } from '../support/sessions';
import { eventually } from '../support/wait';
import { newToken, startServer, tempDir, type TestServer } from '../harness';

/** Ten thousand keys mapped over ten thousand keys: the checker works on it far past any budget. `salt` makes each new. */
const slow = (salt: number) => `type D = "0" | "1" | "2" | "3" | "4" | "5" | "6" | "7" | "8" | "9";
type K4 = \`\${D}\${D}\${D}\${D}\`;
type M = { [K in K4]: { [J in K4]: \`\${K}-\${J}-${salt}\` } };
type V = M[K4][K4];
declare const v: V;
export function main() { return "slow ${salt} ran"; }
`;

async function startWithAttacker(budgetSeconds: number): Promise<{ server: TestServer; attacker: string }> {
  const home = tempDir();
  const attacker = newToken();
  fs.writeFileSync(path.join(home, 'attacker.token'), `${attacker}\n`);
  const server = await startServer({ home, runners: 1, args: ['--typecheck-budget', String(budgetSeconds)], config: { api_tokens: [{ name: 'attacker', role: 'user', token_file: path.join(home, 'attacker.token') }] } });
  await registerBlueprint(server, 'name: open\ndefault: allow\n');
  return { server, attacker };
}

const oneOff = (server: TestServer, token: string, code: string) => server.request('POST', '/v1/execute', { token, body: { blueprint: 'open', code } });
const checksRunning = async (server: TestServer) => Number(/^svc_typechecks_running (\d+)$/m.exec((await server.request('GET', '/metrics')).text)?.[1] ?? 'NaN');

describe('checks that never end, sent by one token', () => {
  let server: TestServer;
  let attacker: string;
  before(async () => {
    // A budget far past this test: the slow checks run throughout it.
    ({ server, attacker } = await startWithAttacker(300));
  });
  after(async () => {
    await server.stop();
  });

  test("hold at most all checker threads but one: another token's new programs are checked and run meanwhile", async () => {
    let answered = 0;
    // The server on this machine has as many checker threads as this process computes; a token may hold all but one.
    const perToken = ORDINARY_CHECKERS - 1;
    // As many at once as the token may have checked, each new (a different salt): checks that do not end.
    const slowRuns = Array.from({ length: perToken }, (_, salt) => oneOff(server, attacker, slow(salt)).then(() => answered++, () => answered++));
    await eventually('the slow checks to be running', async () => (await checksRunning(server)) >= perToken);
    // One more from the same token waits for one of its own to end.
    const waiting = oneOff(server, attacker, slow(perToken)).then(() => answered++, () => answered++);

    // One of each (the slow checks keep cores busy for as long as this test runs).
    const refused = await oneOff(server, server.userToken, 'export function main() { return victimMissing; }');
    assert.equal(refused.json.error?.kind, 'compile_error', refused.text);
    assert.match(refused.json.error.message, /Cannot find name 'victimMissing'/);
    const ran = await oneOff(server, server.userToken, 'function add(a, b) { return (a || 0) + (b || 0) + 2; }\nexport function main() { return add(1); }');
    assert.equal(ran.json.error, null, ran.text);
    assert.equal(ran.json.result, '3');
    assert.match(ran.json.warnings?.[0]?.message ?? '', /Expected 2 arguments, but got 1/);
    // Every program of the other token was checked and ran while the slow checks were still running.
    assert.equal(answered, 0, "a slow program was answered before the other token's programs");
    assert.equal(await checksRunning(server), perToken);
    void Promise.all([...slowRuns, waiting]);
  });
});

describe('a check past its budget', () => {
  let server: TestServer;
  let attacker: string;
  before(async () => {
    ({ server, attacker } = await startWithAttacker(2));
  });
  after(async () => {
    await server.stop();
  });

  test('runs the program unchecked, with a warning saying so; never a refusal', async () => {
    const reply = await oneOff(server, attacker, slow(7));
    assert.equal(reply.json.error, null, reply.text.slice(0, 500));
    assert.equal(reply.json.result, 'slow 7 ran');
    // Its budget is time and heap: 2 s usually pass first (on a quiet machine this check
    // filled the 512 MiB heap in under 5 s, spinning a core meanwhile). Either ends it the same way.
    assert.match(reply.json.warnings?.[0]?.message ?? '', /^not type-checked: its check (did not finish within 2 s|needed more than the type checker's 512 MiB heap \(typecheck_thread_memory\)); the program runs unchecked$/);
    assert.equal(await checksRunning(server), 0);
    // The checker thread was replaced: the next program is checked again.
    const next = await oneOff(server, server.userToken, 'export function main() { return missingAfterBudget; }');
    assert.equal(next.json.error?.kind, 'compile_error', next.text);
  });
});
