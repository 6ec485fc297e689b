// Tapes of runs that loaded Packages, replayed offline (issue 38 item 3, README "Tapes"): a
// run of the curated @svc/jina (its far end a loopback HTTPS stand-in under r.jina.ai, with a
// bound API key) exported as a tape that carries the Packages' code and no secret; with the
// server and far end gone, `svc replay` loads the Packages from the tape and reproduces
// result, console and fuel given the operator's own secret; a tampered Package source is
// refused (exit 3, naming it), and a replay without the secret diverges (exit 1). The first
// replay is a bin/svc process; the others, about what the command prints and returns, run
// in-process (svcInProcess).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { tempDir } from '../harness';
import { runSvc, svcInProcess } from '../support/cli';
import { startCurated, stopCurated, type Curated } from '../support/curated';

const PAGE = '# Doc\n\nHello from the page.\n';

const program = `import { read } from "@svc/jina";
export function main() {
  const page = read("https://pages.example/doc");
  const roll = Math.random();
  console.log("read", page.length, "bytes at", Date.now() > 0);
  return { page, roll };
}`;

describe('tapes of runs with Packages replay offline', () => {
  let curated: Curated;
  const secret = `jina-${randomBytes(12).toString('hex')}`;
  const work = tempDir('svc-tapes-packages-');
  const tapeFile = path.join(work, 'tape.json');
  const secretsFile = path.join(work, 'secrets.json');
  let tapeText = '';
  let tape: any;
  let recordedResult = '';

  before(async () => {
    curated = await startCurated({
      package: '@svc/jina',
      hosts: ['r.jina.ai', 's.jina.ai'],
      secret: 'JINA_API_KEY',
      main: [{ capability: 'jina.ai/read' }],
      handler: () => ({ body: PAGE, headers: { 'content-type': 'text/plain; charset=utf-8' } }),
    });
    fs.writeFileSync(secretsFile, JSON.stringify({ JINA_API_KEY: secret }));
  });
  after(async () => {
    await curated?.close();
    await stopCurated();
  });

  test('the tape of a run that imported a curated Package carries its code (name, version, digest, sources) and no secret value', async () => {
    const out = await curated.run(program, { secrets: { JINA_API_KEY: secret } });
    assert.equal(out.error, undefined, JSON.stringify(out.error));
    assert.equal(out.value.page, PAGE);
    assert.equal(curated.api.requests.at(-1)?.headers.authorization, `Bearer ${secret}`, 'the far end got the key');
    recordedResult = out.result!;
    const reply = await curated.server.request('GET', `/v1/runs/${out.reply.json.execution_id}/tape`, { token: curated.server.userToken });
    assert.equal(reply.status, 200, reply.text);
    tapeText = reply.text;
    tape = reply.json;
    assert.ok(!tapeText.includes(secret), 'no secret value in the tape');
    const jina = tape.packages.find((p: any) => p.name === '@svc/jina');
    assert.ok(jina, JSON.stringify(tape.packages.map((p: any) => p.name)));
    assert.equal(jina.version, '0.1.0');
    assert.equal(jina.listed, true);
    assert.match(jina.digest, /^sha256:[0-9a-f]{64}$/);
    assert.equal(typeof jina.lib, 'string');
    assert.ok(jina.lib.includes('JINA_API_KEY'), 'the built lib.js as installed');
    assert.equal(jina.code_omitted, undefined);
    for (const dependency of jina.dependencies) {
      const carried = tape.packages.find((p: any) => p.name === dependency.name);
      assert.ok(carried && typeof carried.lib === 'string' && carried.listed === false, `dependency ${dependency.name} is carried too`);
    }
    fs.writeFileSync(tapeFile, tapeText);
  });

  test('with the server and the far end gone, svc replay loads the Packages from the tape and reproduces result, console and fuel (exit 0)', async () => {
    assert.ok(tape, 'the tape was exported');
    const requestsBefore = curated.api.requests.length;
    await stopCurated();
    const replay = await runSvc(['replay', tapeFile, '--secrets', secretsFile]);
    assert.equal(replay.code, 0, replay.stderr);
    assert.equal(replay.stdout.trim(), recordedResult);
    assert.match(replay.stderr, /^read \d+ bytes at true$/m);
    assert.match(replay.stderr, new RegExp(`replay matches: result, 1 console lines and fuel \\(wasm ${tape.fuel.wasm}, host ${tape.fuel.host}\\)`));
    assert.equal(curated.api.requests.length, requestsBefore, 'the replay reached no far end');
    assert.ok(!replay.stdout.includes(secret) && !replay.stderr.includes(secret));
  });

  test('without the operator\'s secret the Package sends a different request: the replay diverges (exit 1) at that call', async () => {
    assert.ok(tape, 'the tape was exported');
    const replay = await svcInProcess(['replay', tapeFile]);
    assert.equal(replay.code, 1, replay.stderr);
    assert.match(replay.stderr, /replay diverged at step \d+: the journal holds host_call #\d+ svc:http\.post sha256:[0-9a-f]{64}, the program asked for host_call #\d+ svc:http\.post sha256:[0-9a-f]{64}/);
  });

  test('a bad --secrets file is a usage error (exit 2) naming the file and never echoing its text', async () => {
    assert.ok(tape, 'the tape was exported');
    const list = path.join(work, 'list.json');
    fs.writeFileSync(list, '["a"]');
    const notObject = await svcInProcess(['replay', tapeFile, '--secrets', list]);
    assert.equal(notObject.code, 2, notObject.stderr);
    assert.match(notObject.stderr, /--secrets .*list\.json: must be a JSON object of secret names to string values/);
    const broken = path.join(work, 'broken.json');
    fs.writeFileSync(broken, `{"JINA_API_KEY": ${secret}}`);
    const notJson = await svcInProcess(['replay', tapeFile, '--secrets', broken]);
    assert.equal(notJson.code, 2, notJson.stderr);
    assert.match(notJson.stderr, /--secrets .*broken\.json: is not valid JSON/);
    assert.ok(!notJson.stderr.includes(secret), 'the text is not echoed');
  });

  test('a tape whose Package source was tampered with is refused (exit 3), naming the Package', async () => {
    assert.ok(tape, 'the tape was exported');
    const tampered = structuredClone(tape);
    const jina = tampered.packages.find((p: any) => p.name === '@svc/jina');
    jina.lib = jina.lib.replace('JINA_API_KEY', 'JINA_API_KEX');
    const file = path.join(work, 'tampered.json');
    fs.writeFileSync(file, JSON.stringify(tampered));
    const replay = await svcInProcess(['replay', file, '--secrets', secretsFile]);
    assert.equal(replay.code, 3, replay.stderr);
    assert.match(replay.stderr, new RegExp(`package '@svc/jina': its code in the tape does not match its recorded digest ${jina.digest}`));
  });

  test('a tape without a Package\'s code (omitted, with the reason) is refused (exit 3), naming the Package and the reason', async () => {
    assert.ok(tape, 'the tape was exported');
    const omitted = structuredClone(tape);
    const jina = omitted.packages.find((p: any) => p.name === '@svc/jina');
    delete jina.lib;
    jina.code_omitted = 'it was reinstalled since the run';
    const file = path.join(work, 'omitted.json');
    fs.writeFileSync(file, JSON.stringify(omitted));
    const replay = await svcInProcess(['replay', file]);
    assert.equal(replay.code, 3, replay.stderr);
    assert.match(replay.stderr, /the tape does not carry package '@svc\/jina''s code: it was reinstalled since the run/);
  });
});
