// A checker that cannot be used against the server or other programs. One token sends, in a
// loop, a few hundred bytes of nested mapped and template-literal types whose check never
// ends; another token's new programs are still checked (a mistake is refused, a working
// program runs with its warnings) while that check is running, seen on the
// svc_typechecks_running gauge and by the slow run not having answered yet. The slow
// program itself is never refused: past the check's budget it runs unchecked with a warning
// saying so. Proven by order, not by time.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
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

describe('a check that never ends', () => {
  let server: TestServer;
  let attacker: string;
  before(async () => {
    const home = tempDir();
    attacker = newToken();
    fs.writeFileSync(path.join(home, 'attacker.token'), `${attacker}\n`);
    server = await startServer({ home, runners: 1, config: { api_tokens: [{ name: 'attacker', role: 'user', token_file: path.join(home, 'attacker.token') }] } });
    await registerBlueprint(server, 'name: open\ndefault: allow\n');
  });
  after(async () => {
    await server.stop();
  });

  const oneOff = (token: string, code: string) => server.request('POST', '/v1/execute', { token, body: { blueprint: 'open', code } });
  const checksRunning = async () => Number(/^svc_typechecks_running (\d+)$/m.exec((await server.request('GET', '/metrics')).text)?.[1] ?? 'NaN');

  test("another token's new programs are checked and run while it is being checked; it runs unchecked with a warning", async () => {
    let answered = 0;
    const answers: Array<{ json: any }> = [];
    let stop = false;
    // The attacker's loop: each slow program is new, so each is a new check.
    const loop = (async () => {
      for (let salt = 0; salt < 3 && !stop; salt++) {
        const reply = await oneOff(attacker, slow(salt));
        answers.push(reply);
        answered++;
      }
    })();
    await eventually('the slow check to be running', async () => (await checksRunning()) >= 1);

    for (let i = 0; i < 3; i++) {
      const refused = await oneOff(server.userToken, `export function main() { return victimMissing${i}; }`);
      assert.equal(refused.json.error?.kind, 'compile_error', refused.text);
      assert.match(refused.json.error.message, new RegExp(`Cannot find name 'victimMissing${i}'`));
      const ran = await oneOff(server.userToken, `function add(a, b) { return (a || 0) + (b || 0) + ${i}; }\nexport function main() { return add(1); }`);
      assert.equal(ran.json.error, null, ran.text);
      assert.equal(ran.json.result, String(1 + i));
      assert.match(ran.json.warnings?.[0]?.message ?? '', /Expected 2 arguments, but got 1/);
    }
    // Every victim program was checked and ran while the first slow check was still running.
    assert.equal(answered, 0, 'the slow program was answered before the other token\'s programs');
    assert.ok((await checksRunning()) >= 1);
    stop = true;
    await loop;
    const first = answers[0].json;
    assert.equal(first.error, null, JSON.stringify(first).slice(0, 500));
    assert.equal(first.result, 'slow 0 ran');
    assert.match(first.warnings?.[0]?.message ?? '', /^not type-checked: .*; the program runs unchecked$/);
  });
});
