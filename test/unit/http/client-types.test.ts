// The TypeScript client's wire types (clients/typescript/src/openapi-types.ts) are generated
// from the OpenAPI document of the route declarations; the committed file must be what the
// current declarations produce, so a changed wire shape cannot leave the client behind.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { CLIENT_TYPES_FILE, clientTypesSource } from '../../../scripts/client-types';

test('the committed client types match the current OpenAPI document', async () => {
  const committed = fs.readFileSync(CLIENT_TYPES_FILE, 'utf8').split('\n');
  const generated = (await clientTypesSource()).split('\n');
  const first = generated.findIndex((line, i) => committed[i] !== line);
  const where = first === -1 && committed.length !== generated.length ? Math.min(committed.length, generated.length) : first;
  assert.equal(
    where,
    -1,
    `clients/typescript/src/openapi-types.ts is out of date from line ${where + 1} (committed: ${JSON.stringify(committed[where])}, generated: ${JSON.stringify(generated[where])}); run \`npm run generate\` and commit it`,
  );
});

test('the generated types carry the execute error kinds of the server', async () => {
  const { EXECUTE_ERROR_KINDS } = await import('../../../src/execution');
  const source = await clientTypesSource();
  const kinds = /ExecuteError: \{.*?\bkind: ([^;]+);/s.exec(source)?.[1] ?? '';
  assert.deepEqual([...kinds.matchAll(/"(\w+)"/g)].map((m) => m[1]).sort(), [...EXECUTE_ERROR_KINDS].sort());
});
