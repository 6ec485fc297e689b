// Install building blocks: repository specs of B.7 and archive extraction (top directory
// stripped; absolute paths, `..`, links leaving the tree and devices refused).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { PackageError } from '../../../src/packages';
import { parseRepositorySpec } from '../../../src/packages/install/spec';
import { ArchiveError, extractTarGz } from '../../../src/packages/install/tar';
import { tarGz } from '../../support/code-host';
import { tempDir } from '../../support/packages';

test('every spec form of B.7 names the repository and the ref', () => {
  const cases: Array<[string, string, string, string | null]> = [
    ['acme/pkgs', 'acme', 'pkgs', null],
    ['acme/pkgs@v1.2', 'acme', 'pkgs', 'v1.2'],
    ['github.com/acme/pkgs', 'acme', 'pkgs', null],
    ['https://github.com/acme/pkgs.git', 'acme', 'pkgs', null],
    ['https://github.com/acme/pkgs/tree/release/1.x', 'acme', 'pkgs', 'release/1.x'],
    [`https://github.com/acme/pkgs/commit/${'a'.repeat(40)}`, 'acme', 'pkgs', 'a'.repeat(40)],
    ['git@github.com:acme/pkgs.git', 'acme', 'pkgs', null],
    ['ssh://git@github.com/acme/pkgs.git@main', 'acme', 'pkgs', 'main'],
  ];
  for (const [spec, owner, repo, ref] of cases) assert.deepEqual(parseRepositorySpec(spec), { owner, repo, ref }, spec);
});

test('bad specs are invalid_url with what is accepted', () => {
  for (const spec of ['', 'acme', 'a/b/c', 'https://gitlab.com/a/b', '-acme/pkgs', 'acme/pkgs@', 'acme/pkgs@a..b', 'acme/..']) {
    assert.throws(() => parseRepositorySpec(spec), (error: unknown) => error instanceof PackageError && error.code === 'invalid_url' && /write owner\/repo/.test(error.message), spec);
  }
});

test('extraction strips the top directory and keeps files, directories and inner links', () => {
  const target = path.join(tempDir(), 'out');
  extractTarGz(tarGz([{ name: 'repo-abc/', type: '5' }, { name: 'repo-abc/svc.toml', body: 'x' }, { name: 'repo-abc/src/lib.ts', body: 'y' }, { name: 'repo-abc/link', type: '2', link: 'src/lib.ts' }, { name: `repo-abc/${'d'.repeat(120)}/f`, body: 'long' }]), target);
  assert.equal(fs.readFileSync(path.join(target, 'svc.toml'), 'utf8'), 'x');
  assert.equal(fs.readFileSync(path.join(target, 'src', 'lib.ts'), 'utf8'), 'y');
  assert.equal(fs.readlinkSync(path.join(target, 'link')), 'src/lib.ts');
  assert.equal(fs.readFileSync(path.join(target, 'd'.repeat(120), 'f'), 'utf8'), 'long');
});

test('extraction refuses escapes, outside links, devices, several top directories and non-gzip data', () => {
  const refuses = (entries: Parameters<typeof tarGz>[0], pattern: RegExp) => {
    const root = tempDir();
    assert.throws(() => extractTarGz(tarGz(entries), path.join(root, 'out')), (error: unknown) => error instanceof ArchiveError && pattern.test(error.message));
    assert.ok(!fs.existsSync(path.join(root, 'evil')), 'nothing written outside');
  };
  refuses([{ name: 'top/../../evil', body: 'x' }], /climbs out/);
  refuses([{ name: '/etc/evil', body: 'x' }], /absolute path/);
  refuses([{ name: 'top/link', type: '2', link: '../../evil' }], /points outside/);
  refuses([{ name: 'top/link', type: '2', link: '/etc/passwd' }], /absolute path/);
  refuses([{ name: 'top/dev', type: '3' }], /device/);
  refuses([{ name: 'a/x', body: '1' }, { name: 'b/y', body: '2' }], /more than one top-level directory/);
  assert.throws(() => extractTarGz(Buffer.from('plain text'), path.join(tempDir(), 'out')), /not gzip data/);
});
