// Install building blocks: repository specs and strict archive extraction (top
// directory stripped; links of any kind, absolute paths, `..`, devices, bad checksums,
// truncation and archives over the entry or unpacked-size bound refused).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { PackageError } from '../../../src/packages';
import { parseRepositorySpec } from '../../../src/packages/install/spec';
import { ArchiveError, extractTarGz } from '../../../src/packages/install/tar';
import { tarGz, tarStream } from '../../support/code-host';
import { tempDir } from '../../support/packages';

test('every accepted spec form names the repository and the ref', () => {
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

/** One pax record `<length> <key>=<value>\n`, its length counting itself (UTF-8 bytes). */
function paxRecord(key: string, value: string): string {
  const body = ` ${key}=${value}\n`;
  const bytes = Buffer.byteLength(body);
  let length = bytes + 1;
  while (String(length).length + bytes !== length) length++;
  return `${length}${body}`;
}

test('extraction strips the top directory and keeps files, directories, long names (ustar prefix, pax path, GNU long name) and empty files', async () => {
  const target = path.join(tempDir(), 'out');
  const paxPath = 'repo-abc/' + 'p'.repeat(150) + '/pax.txt';
  await extractTarGz(
    tarGz([
      { name: 'pax_global_header', type: 'g', body: paxRecord('comment', 'a'.repeat(40)) },
      { name: 'repo-abc/', type: '5' },
      { name: 'repo-abc/svc.toml', body: 'x' },
      { name: 'repo-abc/src/lib.ts', body: 'y'.repeat(1500) },
      { name: 'repo-abc/empty', body: '' },
      { name: `repo-abc/${'d'.repeat(120)}/f`, body: 'long' },
      { name: 'PaxHeader', type: 'x', body: paxRecord('path', paxPath) },
      { name: 'ignored', body: 'pax' },
      { name: '././@LongLink', type: 'L', body: `repo-abc/${'g'.repeat(200)}.txt\0` },
      { name: 'ignored-too', body: 'gnu' },
    ]),
    target,
  );
  assert.equal(fs.readFileSync(path.join(target, 'svc.toml'), 'utf8'), 'x');
  assert.equal(fs.readFileSync(path.join(target, 'src', 'lib.ts'), 'utf8'), 'y'.repeat(1500));
  assert.equal(fs.readFileSync(path.join(target, 'empty'), 'utf8'), '');
  assert.equal(fs.readFileSync(path.join(target, 'd'.repeat(120), 'f'), 'utf8'), 'long');
  assert.equal(fs.readFileSync(path.join(target, 'p'.repeat(150), 'pax.txt'), 'utf8'), 'pax');
  assert.equal(fs.readFileSync(path.join(target, `${'g'.repeat(200)}.txt`), 'utf8'), 'gnu');
  assert.deepEqual(fs.readdirSync(target).sort(), ['d'.repeat(120), 'empty', `${'g'.repeat(200)}.txt`, 'p'.repeat(150), 'src', 'svc.toml'].sort());
});

/** Every file and link beneath `dir`, relative. */
function tree(dir: string): string[] {
  return fs.readdirSync(dir, { recursive: true, withFileTypes: false }).map(String).sort();
}

const refuses = async (archive: Buffer, pattern: RegExp, limits?: Parameters<typeof extractTarGz>[2]) => {
  const root = tempDir();
  const target = path.join(root, 'out');
  await assert.rejects(extractTarGz(archive, target, limits), (error: unknown) => error instanceof ArchiveError && pattern.test(error.message), String(pattern));
  assert.deepEqual(fs.readdirSync(root), ['out'], 'nothing written beside the target');
  for (const entry of tree(target)) assert.ok(!fs.lstatSync(path.join(target, entry)).isSymbolicLink(), `no link was created (${entry})`);
  return target;
};

test('links of every kind are refused naming the entry, the link pair that climbed out included', async () => {
  const pair = await refuses(
    tarGz([{ name: 'top/', type: '5' }, { name: 'top/x/y', type: '2', link: '..' }, { name: 'top/x/y/z', type: '2', link: '..' }, { name: 'top/x/y/z/pwned.txt', body: 'pwned' }]),
    /^the archive entry 'top\/x\/y' is a symbolic link \(to '\.\.'\); links are not accepted/,
  );
  assert.deepEqual(tree(pair), []);
  await refuses(tarGz([{ name: 'top/link', type: '2', link: 'src/lib.ts' }]), /'top\/link' is a symbolic link \(to 'src\/lib\.ts'\)/);
  await refuses(tarGz([{ name: 'top/a', body: 'a' }, { name: 'top/hard', type: '1', link: 'top/a' }]), /'top\/hard' is a hard link \(to 'top\/a'\)/);
  await refuses(tarGz([{ name: 'top/link', type: '2', link: '/etc/passwd' }]), /symbolic link \(to '\/etc\/passwd'\)/);
  // A GNU long link name names a link whatever entry follows it, and cannot end the archive.
  await refuses(tarGz([{ name: '././@LongLink', type: 'K', body: 'x'.repeat(200) }, { name: 'top/a', body: 'a' }]), /'top\/a' carries a link name \(to 'x{200}'\); links are not accepted/);
  await refuses(tarGz([{ name: '././@LongLink', type: 'K', body: 'x'.repeat(200) }]), /ends right after an extended header/);
});

test('escapes, devices, unknown types, duplicates and several top directories are refused', async () => {
  await refuses(tarGz([{ name: 'top/../../evil', body: 'x' }]), /'top\/\.\.\/\.\.\/evil' climbs out with '\.\.'/);
  await refuses(tarGz([{ name: '/etc/evil', body: 'x' }]), /'\/etc\/evil' has an absolute path/);
  await refuses(tarGz([{ name: 'top/dev', type: '3' }]), /'top\/dev' is a device or FIFO/);
  await refuses(tarGz([{ name: 'top/sparse', type: 'S' }]), /'top\/sparse' has type 'S', which is not accepted \(only regular files and directories are\)/);
  await refuses(tarGz([{ name: 'top/a', body: '1' }, { name: 'top/a', body: '2' }]), /'top\/a' appears more than once/);
  await refuses(tarGz([{ name: 'a/x', body: '1' }, { name: 'b/y', body: '2' }]), /more than one top-level directory \('a', 'b'\)/);
  await refuses(tarGz([{ name: 'lonely.txt', body: '1' }]), /'lonely\.txt' is not inside the top-level directory/);
  // A name from the archive is shown escaped and cut short in the message.
  const hostileName = `top/\u001b[31m${'x'.repeat(5000)}/../evil`;
  const root = tempDir();
  await assert.rejects(extractTarGz(tarGz([{ name: 'PaxHeader', type: 'x', body: paxRecord('path', hostileName) }, { name: 'x', body: '' }]), path.join(root, 'out')), (error: unknown) => {
    const message = (error as Error).message;
    return error instanceof ArchiveError && message.includes("'top/\\x1b[31mxxx") && message.length < 300 && !message.includes('\u001b');
  });
});

test('bad checksums, malformed pax headers, truncation and non-gzip data are refused; v7 headers are read', async () => {
  const good = tarStream([{ name: 'top/', type: '5' }, { name: 'top/a.txt', body: 'a'.repeat(700) }]);
  const flipped = Buffer.from(good);
  flipped[512 + 10] ^= 0x01; // a name byte of the second header
  await refuses(gzipSync(flipped), /a header with a bad checksum/);
  const v7 = Buffer.from(good);
  v7.fill(0, 257, 265);
  let sum = 0;
  for (let i = 0; i < 512; i++) sum += i >= 148 && i < 156 ? 32 : v7[i]!;
  v7.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148);
  // node-tar reads pre-POSIX (v7) headers as GNU tar and bsdtar do; the checksum still guards them.
  const v7Target = path.join(tempDir(), 'v7');
  await extractTarGz(gzipSync(v7), v7Target);
  assert.equal(fs.readFileSync(path.join(v7Target, 'a.txt'), 'utf8'), 'a'.repeat(700));
  await refuses(gzipSync(good.subarray(0, 512 + 512 + 100)), /truncated \(it ends before its end-of-archive blocks\)/);
  await refuses(gzipSync(good.subarray(0, good.length - 1024)), /truncated/);
  const compressed = gzipSync(good);
  await refuses(compressed.subarray(0, compressed.length - 12), /truncated \(the gzip stream ends early\)/);
  // node-tar skips a pax record whose length is wrong (the entry keeps its own name, judged by our rules)
  // and reads `size=1e9` as 10^9 bytes, which the stream does not hold.
  await refuses(tarGz([{ name: 'PaxHeader', type: 'x', body: '99 path=top/x\n' }, { name: 'x', body: '' }]), /'x' is not inside the top-level directory/);
  await refuses(tarGz([{ name: 'PaxHeader', type: 'x', body: '12 size=1e9\n' }, { name: 'top/x', body: '' }]), /truncated \(it ends before its end-of-archive blocks\)/);
  await refuses(Buffer.from('plain text'), /not valid gzip data/);
});

test('the entry count and the unpacked size are bounded, while inflating', async () => {
  const many = tarGz([{ name: 'top/', type: '5' }, ...Array.from({ length: 6 }, (_, i) => ({ name: `top/f${i}`, body: 'x' }))]);
  await refuses(many, /more than 5 entries/, { maxEntries: 5, maxUnpackedBytes: 1 << 20 });
  // Only the header: the declared size is refused before any data is read.
  await refuses(gzipSync(tarStream([{ name: 'top/big', body: 'x'.repeat(5000) }]).subarray(0, 512)), /'top\/big' declares 5000 bytes, more than the 4096 bytes an archive may unpack to/, { maxEntries: 10, maxUnpackedBytes: 4096 });
  // A valid small archive followed by a run of zeros (a gzip bomb in miniature): inflating stops at the bound.
  const bomb = Buffer.concat([tarGz([{ name: 'top/a', body: 'a' }]), gzipSync(Buffer.alloc(1 << 20))]);
  await refuses(bomb, /unpacks to more than 65536 bytes/, { maxEntries: 10, maxUnpackedBytes: 65536 });
  // Within the bounds the same shapes extract.
  await extractTarGz(many, path.join(tempDir(), 'ok'), { maxEntries: 7, maxUnpackedBytes: 1 << 20 });
});

test('what node-tar reads is judged by our rules: a pax linkpath on a file, base-256 sizes, oversized extended headers, gzip inside gzip', async () => {
  await refuses(tarGz([{ name: 'PaxHeader', type: 'x', body: paxRecord('linkpath', '/etc/passwd') }, { name: 'top/a', body: 'a' }]), /'top\/a' carries a link name \(to '\/etc\/passwd'\); links are not accepted/);
  // A base-256 size (which the old reader could not read) is decoded and refused from the header alone.
  const header = tarStream([{ name: 'top/huge', body: 'x' }]).subarray(0, 512);
  header.fill(0, 124, 136);
  header[124] = 0x80;
  header.writeUIntBE(2 ** 33, 130, 6);
  header.write('        ', 148);
  let sum = 0;
  for (const byte of header) sum += byte;
  header.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148);
  await refuses(gzipSync(header), /'top\/huge' declares 8589934592 bytes/);
  await refuses(tarGz([{ name: 'PaxHeader', type: 'x', body: paxRecord('comment', 'c'.repeat(1024 * 1024)) }, { name: 'top/a', body: 'a' }]), /an extended header of 1048\d{3} bytes \(at most 1048576\)/);
  // The Parser would inflate a gzip stream it finds inside, beyond our count of unpacked bytes.
  await refuses(gzipSync(tarGz([{ name: 'top/a', body: 'a' }])), /gzip inside gzip/);
});
