// Packages in tapes (src/packages/tape-code.ts): code embedded only when it compiles to the
// run's recorded digest, omitted with the reason otherwise (reinstalled, not installed, past
// the tape's bound), and loaded back for a replay only when it matches its digest.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { embedPackageCode, prepareTapePackages, preparePackages, stampedDigests, type LoadablePackage, type RecordedPackage } from '../../../src/packages';

const SVC_MODULES = ['svc:http', 'svc:secrets'];
const base: LoadablePackage = { name: '@t/base', version: '1.0.0', dependencies: [], lib: 'export function twice(n) { return n * 2; }\n', map: null };
const app: LoadablePackage = { name: '@t/app', version: '2.0.0', dependencies: [{ name: '@t/base', version: '1.0.0' }], lib: 'import { twice } from "@t/base";\nexport function four() { return twice(2); }\n', map: null };
const installed = (...packages: LoadablePackage[]) => (name: string) => packages.find((p) => p.name === name) ?? null;

/** What a run of a Blueprint listing @t/app records (dependencies first). */
async function recordedRun(): Promise<RecordedPackage[]> {
  const prepared = await preparePackages(['@t/app'], installed(base, app), SVC_MODULES);
  assert.ok(prepared.ok, prepared.ok ? '' : prepared.message);
  return prepared.value.packages.map((p) => ({ name: p.script.name, version: p.version, digest: `sha256:${p.script.key}`, listed: p.listed }));
}

test('a run\'s Packages are embedded with their code and load back for a replay with the same digests and listed flags', async () => {
  const recorded = await recordedRun();
  assert.deepEqual(recorded.map((p) => [p.name, p.listed]), [['@t/base', false], ['@t/app', true]]);
  const embedded = await embedPackageCode(recorded, installed(base, app), SVC_MODULES);
  assert.deepEqual(embedded.map((p) => [p.name, p.lib, p.code_omitted]), [['@t/base', base.lib, undefined], ['@t/app', app.lib, undefined]]);
  assert.deepEqual(embedded[1]!.dependencies, [{ name: '@t/base', version: '1.0.0' }]);
  const loaded = await prepareTapePackages(JSON.parse(JSON.stringify(embedded)), SVC_MODULES);
  assert.ok(loaded.ok, loaded.ok ? '' : loaded.message);
  assert.deepEqual(loaded.value.listed, ['@t/app']);
  assert.deepEqual(loaded.value.packages.map((p) => [p.script.name, `sha256:${p.script.key}`, p.listed]), recorded.map((p) => [p.name, p.digest, p.listed]));
});

test('a Package reinstalled since the run is omitted, saying so; the others still carry their code', async () => {
  const recorded = await recordedRun();
  const changed = { ...app, lib: app.lib.replace('twice(2)', 'twice(3)') };
  const embedded = await embedPackageCode(recorded, installed(base, changed), SVC_MODULES);
  assert.match(embedded[1]!.code_omitted ?? '', /^it was reinstalled since the run \(its code is now sha256:[0-9a-f]{64}\)$/);
  assert.equal(embedded[1]!.lib, undefined);
  assert.equal(embedded[0]!.lib, base.lib);
  const loaded = await prepareTapePackages(embedded, SVC_MODULES);
  assert.ok(!loaded.ok);
  assert.match(loaded.message, /the tape does not carry package '@t\/app''s code: it was reinstalled since the run/);
});

test('a Package no longer installed: no code is embedded, each entry names the reason', async () => {
  const recorded = await recordedRun();
  const embedded = await embedPackageCode(recorded, installed(app), SVC_MODULES);
  assert.deepEqual(embedded.map((p) => p.code_omitted), ['it is no longer installed on the server that ran it', "not embedded: the tape cannot carry package '@t/base'"]);
  assert.ok(embedded.every((p) => p.lib === undefined));
});

test('past the tape\'s bound no code is embedded and every Package says so', async () => {
  const recorded = await recordedRun();
  const embedded = await embedPackageCode(recorded, installed(base, app), SVC_MODULES, { maxBytes: 64 });
  for (const entry of embedded) {
    assert.equal(entry.lib, undefined);
    assert.match(entry.code_omitted ?? '', /the Packages' code \(\d+ bytes\) is past the tape's bound of 64 bytes/);
  }
});

test('embedded code that does not compile to its recorded digest is refused, naming the Package and both digests', async () => {
  const embedded = await embedPackageCode(await recordedRun(), installed(base, app), SVC_MODULES);
  const tampered = embedded.map((p) => (p.name === '@t/base' ? { ...p, lib: p.lib!.replace('n * 2', 'n * 2 + 0') } : p));
  const loaded = await prepareTapePackages(tampered, SVC_MODULES);
  assert.ok(!loaded.ok);
  assert.match(loaded.message, new RegExp(`^package '@t/base': its code in the tape does not match its recorded digest ${embedded[0]!.digest} \\(it compiles to sha256:[0-9a-f]{64} here\\)`));
  const stray = await prepareTapePackages([...embedded, { ...embedded[0]!, name: '@t/extra', listed: false }], SVC_MODULES);
  assert.ok(!stray.ok);
  assert.match(stray.message, /package '@t\/extra' is in the tape but no listed Package needs it/);
});

test('a remembered digest is used while the Package\'s stamp is unchanged (nothing compiled again); a new stamp checks the code again', async () => {
  const recorded = await recordedRun();
  let stamp = 'one';
  const memo = stampedDigests(() => stamp);
  const first = await embedPackageCode(recorded, installed(base, app), SVC_MODULES, { memo });
  assert.ok(first.every((p) => p.code_omitted === undefined));
  // Code that would not even compile, under the same stamp: the memo answers without compiling it.
  const broken = { ...app, lib: 'export function four( {' };
  const remembered = await embedPackageCode(recorded, installed(base, broken), SVC_MODULES, { memo });
  assert.equal(remembered[1]!.code_omitted, undefined);
  stamp = 'two';
  const checked = await embedPackageCode(recorded, installed(base, broken), SVC_MODULES, { memo });
  assert.match(checked[1]!.code_omitted ?? '', /^it no longer loads: package '@t\/app' cannot be prepared/);
});
