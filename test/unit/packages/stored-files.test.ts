// A stored Package's files are read through one reader (store.ts): a file that exists but cannot
// be read is PackageError('unloadable') naming the Package, its directory and the fix, for the
// run's lookup, for discovery and for a build that depends on it alike.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { PackageError, PackageService, PackageStore, SCHEMA_VERSION, storeLookup } from '../../../src/packages';
import { storedDependency } from '../../../src/packages/project';
import { tempDir } from '../../support/packages';

const NAME = '@acme/broken';

function storeWithPackage(): { root: string; store: PackageStore; directory: string } {
  const root = tempDir();
  const store = new PackageStore(root);
  const directory = store.write({
    metadata: {
      schema_version: SCHEMA_VERSION, package_name: NAME, package_version: '1.0.0', description: 'a Package that loses its files',
      keywords: [], dependencies: [], exports: { values: ['f'], types: [] }, built_by: 'test',
    },
    lib: 'export function f() { return 1; }',
    map: '{}',
    declarations: 'export declare function f(): number;',
    capabilities: { namespace: 'broken', provides: [], requires: [] },
    readme: '# broken',
  });
  return { root, store, directory };
}

/** Replaces a file with a directory: it still exists (the store finds the Package) but cannot be read. */
function makeUnreadable(directory: string, file: string): void {
  fs.rmSync(path.join(directory, file));
  fs.mkdirSync(path.join(directory, file));
}

const unloadable = (directory: string) => (error: unknown) =>
  error instanceof PackageError && error.code === 'unloadable' && error.message.includes(`package '${NAME}' at ${directory} cannot be loaded`) && error.message.endsWith('reinstall it');

test('an intact stored Package reads back the files it was written with', () => {
  const { store } = storeWithPackage();
  const loaded = storeLookup(store)(NAME);
  assert.equal(loaded?.lib, 'export function f() { return 1; }');
  assert.equal(loaded?.declarations, 'export declare function f(): number;');
  assert.equal(storedDependency(store, NAME)?.declarations, 'export declare function f(): number;');
});

test('an unreadable lib.js or declarations.d.ts is unloadable for the run lookup and for a dependent build', () => {
  const { store, directory } = storeWithPackage();
  makeUnreadable(directory, 'lib.js');
  assert.throws(() => storeLookup(store)(NAME), unloadable(directory));
  const other = storeWithPackage();
  makeUnreadable(other.directory, 'declarations.d.ts');
  assert.throws(() => storedDependency(other.store, NAME), unloadable(other.directory));
});

test('discovery leaves out a Package whose readme cannot be read and reports it as broken', () => {
  const { root, directory } = storeWithPackage();
  makeUnreadable(directory, path.join('docs', 'readme.md'));
  const broken: Array<{ name: string; error: Error }> = [];
  const service = new PackageService(
    { owned: root, fallback: null, apiUrl: 'http://127.0.0.1:9', tokenFile: null, denyWarnings: false, svcVersion: '0.0.0', officialRepository: null },
    (name, error) => broken.push({ name, error }),
  );
  assert.equal(service.describe(NAME), null);
  assert.equal(broken.length, 1);
  assert.equal(broken[0].name, NAME);
  assert.ok(unloadable(directory)(broken[0].error), broken[0].error.message);
});
