// Issue 36: a program writing large files hands the server arguments of megabytes (sent in
// pieces, decoded in a host worker, a file's text kept as bytes). Through the real server
// with two tokens: the text and bytes land intact (characters of 1-4 UTF-8 bytes, past one
// piece), a replaced file's bytes count once against the session's size limit, a refusal
// names the setting and the use, and the other token's runs answer right meanwhile.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { newToken, startServer, tempDir, type TestServer } from '../harness';

let server: TestServer;
const other = newToken();

const BLUEPRINT = `name: writer
default: allow
typecheck: off
vfs: per_session
`;

before(async () => {
  const home = tempDir();
  fs.writeFileSync(path.join(home, 'other.token'), `${other}\n`);
  server = await startServer({
    home,
    args: ['--max-session-vfs-size', '8'],
    config: { api_tokens: [{ name: 'other', role: 'user', token_file: path.join(home, 'other.token') }] },
  });
  const created = await server.request('POST', '/v1/blueprints', { body: { yaml: BLUEPRINT } });
  assert.ok(created.status < 300, created.text);
});
after(async () => {
  await server.stop();
});

async function openSession(token: string): Promise<string> {
  const reply = await server.request('POST', '/v1/sessions', { token, body: { blueprint: 'writer' } });
  assert.equal(reply.status, 200, reply.text);
  return reply.json.session_id;
}

async function run(token: string, sessionId: string, code: string): Promise<unknown> {
  const reply = await server.request('POST', `/v1/sessions/${sessionId}/execute`, { token, body: { code } });
  assert.equal(reply.status, 200, reply.text);
  assert.equal(reply.json.error, null, reply.text);
  return JSON.parse(reply.json.result);
}

/** 3,000,000 UTF-8 bytes in 1,500,000 UTF-16 units: "aé€😀" (1 + 2 + 3 + 4 bytes) repeated. */
const TEXT = 'const text = "a\\u00e9\\u20ac\\ud83d\\ude00".repeat(300000);';
const TEXT_BYTES = 3_000_000;

test('a 3 MB text of 1-4 byte characters and 1 MiB of bytes land intact; a replaced file counts once; the next append is refused naming the limit and the use', async () => {
  const session = await openSession(server.userToken);
  const writes = run(
    server.userToken,
    session,
    `import * as fs from "svc:fs";\nexport function main() { ${TEXT}
  const bytes = new Uint8Array(1024 * 1024); for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 7) & 255;
  fs.writeText("/big.txt", text);
  fs.writeText("/big.txt", text);
  fs.appendText("/big.txt", text);
  fs.write("/bytes.bin", bytes);
  const back = fs.read("/bytes.bin")!;
  let same = back.length === bytes.length; for (let i = 0; same && i < bytes.length; i++) same = back[i] === bytes[i];
  let refused = "";
  try { fs.appendText("/big.txt", text); } catch (e) { refused = e.name + ": " + e.message; }
  return JSON.stringify([fs.readText("/big.txt") === text + text, fs.stat("/big.txt").size, same, refused]);
}`,
  );
  // Meanwhile the other token's runs answer, with the right answer.
  const others = Promise.all([0, 1, 2].map((i) => server.request('POST', '/v1/execute', { token: other, body: { blueprint: 'writer', code: `export function main() { return ${i} * 7; }` } })));
  const [[intact, size, bytesIntact, refused], answers] = (await Promise.all([writes, others])) as [[boolean, number, boolean, string], Array<{ status: number; json: any }>];
  assert.deepEqual(
    answers.map((reply) => [reply.status, reply.json.result]),
    [0, 1, 2].map((i) => [200, String(i * 7)]),
  );
  assert.equal(intact, true, 'the text read back is the text written');
  assert.equal(size, 2 * TEXT_BYTES);
  assert.equal(bytesIntact, true, 'the bytes read back are the bytes written');
  // Replacing the file did not count its bytes twice: 6,000,000 + 1 MiB in use.
  assert.equal(
    refused,
    `QuotaExceededError: fs.appendText /big.txt: the filesystem's size limit of 8388608 bytes (set by max_session_vfs_size) would be exceeded: ${2 * TEXT_BYTES + 1024 * 1024} bytes are in use and this needs ${TEXT_BYTES} more`,
  );
});

test('a long argument of a file operation is still checked as the operation\'s argument: an object is not text', async () => {
  const session = await openSession(server.userToken);
  const result = await run(
    server.userToken,
    session,
    `import * as fs from "svc:fs";\nexport function main() { try { fs.writeText("/x.txt", { text: "x".repeat(400000) }); return JSON.stringify("written"); } catch (e) { return JSON.stringify([e.name, e.message, fs.exists("/x.txt")]); } }`,
  );
  assert.deepEqual(result, ['TypeError', 'fs.writeText: content must be a string', false]);
});
