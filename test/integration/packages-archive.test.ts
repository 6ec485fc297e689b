// Hostile archives through the real server's install route: a code-host stand-in serves
// tarballs with link chains, absolute paths, `..` entries, a bad header checksum, a cut
// tar stream, a cut gzip stream and a gzip bomb. Each is refused as download_failed naming
// what is wrong, the store is unchanged, and nothing is written outside the install's
// scratch directory (the server's TMPDIR is a test directory, checked file by file).
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { startServer, tempDir, type TestServer } from '../harness';
import { startCodeHost, tarGz, tarStream, type CodeHost, type TarEntry } from '../support/code-host';
import { manifest } from '../support/packages';

const files = { 'svc.toml': manifest([{ name: '@acme/fine' }]), 'docs/readme.md': '# fine\n', 'src/lib.ts': '/** One. */\nexport const one = 1;\n' };

/** Every path beneath `dir`, relative, sorted. */
function tree(dir: string): string[] {
  return fs.readdirSync(dir, { recursive: true }).map(String).sort();
}

describe('hostile archives through POST /v1/packages/install', () => {
  let host: CodeHost;
  let server: TestServer;
  let scratch: string;

  before(async () => {
    const dir = tempDir();
    host = await startCodeHost(dir);
    scratch = path.join(dir, 'server-tmp');
    fs.mkdirSync(scratch);
    server = await startServer({ env: { NODE_EXTRA_CA_CERTS: host.certFile, SVC_GITHUB_API_URL: host.url, TMPDIR: scratch }, timeoutMs: 60_000 });
  });
  after(async () => {
    await server?.stop();
    host?.close();
  });

  const stored = () => {
    const dir = path.join(server.home, 'server', 'packages');
    return fs.existsSync(dir) ? tree(dir) : [];
  };
  const refused = async (repository: string, archive: Buffer, message: RegExp) => {
    host.addCommit(repository, ['main'], archive);
    const before = stored();
    const reply = await server.request('POST', '/v1/packages/install', { body: { url: `${repository}@main` } });
    assert.equal(reply.status, 502, reply.text);
    assert.equal(reply.json.error, 'download_failed', reply.text);
    assert.match(reply.json.message, message);
    assert.deepEqual(stored(), before, 'the store is unchanged');
    // The install's workspace is gone and nothing else appeared in the server's temp dir.
    assert.deepEqual(tree(scratch).filter((entry) => /pwned|svc-install-/.test(entry)), [], 'nothing written outside the target');
    return reply;
  };

  test('a chain of links climbing out is refused at its first link, and pwned.txt is written nowhere', async () => {
    // Lexically every link stays inside; followed, top/x/y/z/w is the server's TMPDIR.
    const entries: TarEntry[] = [
      { name: 'top/', type: '5' },
      { name: 'top/x/y', type: '2', link: '..' },
      { name: 'top/x/y/z', type: '2', link: '..' },
      { name: 'top/x/y/z/w', type: '2', link: '..' },
      { name: 'top/x/y/z/w/pwned.txt', body: 'pwned' },
    ];
    await refused('acme/links', tarGz(entries), /acme\/links@[0-9a-f]{40}: the archive entry 'top\/x\/y' is a symbolic link \(to '\.\.'\); links are not accepted/);
    assert.ok(!fs.existsSync(path.join(scratch, 'pwned.txt')));
    assert.ok(!fs.existsSync(path.join(path.dirname(scratch), 'pwned.txt')));
    await refused('acme/hardlink', tarGz([{ name: 'top/', type: '5' }, { name: 'top/h', type: '1', link: 'top/svc.toml' }]), /'top\/h' is a hard link/);
  });

  test('absolute paths and `..` entries are refused and their targets stay absent', async () => {
    const absolute = path.join(scratch, 'pwned-absolute.txt');
    await refused('acme/absolute', tarGz([{ name: 'top/', type: '5' }, { name: absolute, body: 'pwned' }]), /has an absolute path/);
    assert.ok(!fs.existsSync(absolute));
    await refused('acme/dotdot', tarGz([{ name: 'top/', type: '5' }, { name: 'top/../../../pwned-dotdot.txt', body: 'pwned' }]), /climbs out with '\.\.'/);
    assert.ok(!fs.existsSync(path.join(scratch, 'pwned-dotdot.txt')));
  });

  test('a bad header checksum, a cut tar stream and a cut gzip stream are refused', async () => {
    const raw = tarStream([{ name: 'top/', type: '5' }, ...Object.entries(files).map(([name, body]) => ({ name: `top/${name}`, body }))]);
    const corrupted = Buffer.from(raw);
    corrupted[512 + 3] ^= 0x20; // the second header's name, its checksum unchanged
    await refused('acme/checksum', gzipSync(corrupted), /a header with a bad checksum/);
    await refused('acme/cut-tar', gzipSync(raw.subarray(0, 512 * 3 + 17)), /the archive is truncated \(it ends before its end-of-archive blocks\)/);
    const compressed = gzipSync(raw);
    await refused('acme/cut-gzip', compressed.subarray(0, compressed.length - 20), /the archive is truncated \(the gzip stream ends early\)/);
  });

  test('a gzip bomb is refused at the unpacked-size bound (inflated chunk by chunk, never whole), then a good archive installs', async () => {
    // A valid archive, then ~1.1 GiB of zeros in 17 gzip members of 64 MiB (about 1 MB sent).
    const zeros = gzipSync(Buffer.alloc(64 * 1024 * 1024));
    const bomb = Buffer.concat([tarGz([{ name: 'top/', type: '5' }, ...Object.entries(files).map(([name, body]) => ({ name: `top/${name}`, body }))]), ...Array.from({ length: 17 }, () => zeros)]);
    assert.ok(bomb.length < 4 * 1024 * 1024);
    await refused('acme/bomb', bomb, /the archive unpacks to more than 1073741824 bytes/);
    // A declared size over the bound is refused from its header alone.
    const header = tarStream([{ name: 'top/huge', body: 'x' }]).subarray(0, 512);
    header.write(`${(2 * 1024 * 1024 * 1024).toString(8).padStart(11, '0')}\0`, 124);
    let sum = 0;
    for (let i = 0; i < 512; i++) sum += i >= 148 && i < 156 ? 32 : header[i]!;
    header.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148);
    await refused('acme/huge', gzipSync(header), /'top\/huge' declares 2147483648 bytes/);
    host.addCommit('acme/fine', ['main'], files);
    const reply = await server.request('POST', '/v1/packages/install', { body: { url: 'acme/fine@main' } });
    assert.equal(reply.status, 200, reply.text);
    assert.equal(reply.json.installed[0].name, '@acme/fine');
  });
});
