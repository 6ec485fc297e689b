// What a program can see of the prelude's own code (dist/prelude.js, built by scripts/build/prelude.mjs
// with its whitespace minified, so every isolate keeps less source for lazy compiles): its
// functions' source text is the code alone, and a trace of an error thrown inside it still
// names the program's frames only.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { webServer } from '../support/web-server';

const { result, execute } = webServer();

test("the source text of the prelude's functions is their code alone, without our comments or indentation, and they work as before", async () => {
  const r = await result(`export async function main() {
    const texts = [String(Blob), String(setTimeout), String(atob), String(Headers)];
    return {
      comments: texts.filter((text) => text.includes('//') || text.includes('/*')).length,
      multiline: texts.filter((text) => text.includes('\\n')).length,
      lengths: [Blob.length, File.length],
      decoded: atob('aGk='),
      headers: [...new Headers({ b: '2', a: '1' })],
    };
  }`);
  assert.deepEqual(r, { comments: 0, multiline: 0, lengths: [0, 2], decoded: 'hi', headers: [['a', '1'], ['b', '2']] });
});

test('an error thrown inside the prelude is traced to the program line that called it, with no prelude frame', async () => {
  const reply = await execute(`export async function main() {
  const H: any = Headers;
  new H([[1]]);
}`);
  assert.equal(reply.error.kind, 'runtime_error');
  const [headline, frame] = reply.error.message.split('\n');
  assert.equal(headline, 'TypeError: Headers: each pair must have exactly a name and a value');
  assert.equal(frame, '    at main (program.ts:3:3)');
  assert.doesNotMatch(reply.error.message, /svc-prelude/);
});
