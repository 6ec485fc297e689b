// The runner sandbox's pure parts: the environment allow-list, the levels, the wrapper
// command lines and the seccomp filter's encoding. The walls themselves are proved on real
// runner processes in test/integration/runner-sandbox.test.ts.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { levelOf, runnerEnvironment, seccompFilter, SANDBOX_FEATURES } from '../../../sandbox/confine';
import { candidateWrappers, type Host } from '../../../sandbox/confine/wrappers';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const entry = path.join(root, 'sandbox', 'runner', 'main.ts');

describe('runner environment', () => {
  // glibc's allocator settings svc gives every runner (sandbox/confine/environment.ts).
  const ALLOCATOR = { MALLOC_ARENA_MAX: '2', MALLOC_MMAP_THRESHOLD_: '131072', MALLOC_TRIM_THRESHOLD_: '131072' };

  test('only time zone and locale pass (beside the allocator setting svc gives every runner); keys, tokens and every other variable stay behind', () => {
    const env = runnerEnvironment({ TZ: 'Europe/Paris', LANG: 'C.UTF-8', LC_ALL: 'C', SVC_SECRET_KEY: 'k', SVC_SERVER_TOKEN: 't', GITHUB_TOKEN: 'g', AWS_SECRET_ACCESS_KEY: 'a', NODE_OPTIONS: '--require /tmp/x.js', PATH: '/usr/bin', HOME: '/root', LD_PRELOAD: '/tmp/x.so' });
    assert.deepEqual(env, { ...ALLOCATOR, TZ: 'Europe/Paris', LANG: 'C.UTF-8', LC_ALL: 'C' });
  });

  test("glibc's allocator settings an operator set reach the runner and win over svc's", () => {
    const tunables = 'glibc.malloc.trim_threshold=262144';
    assert.deepEqual(runnerEnvironment({ MALLOC_ARENA_MAX: '64', GLIBC_TUNABLES: tunables, MALLOC_TRIM_THRESHOLD_: '65536', MALLOC_MMAP_THRESHOLD_: '131072', MALLOC_TOP_PAD_: '0' }), {
      MALLOC_ARENA_MAX: '64',
      GLIBC_TUNABLES: tunables,
      MALLOC_TRIM_THRESHOLD_: '65536',
      MALLOC_MMAP_THRESHOLD_: '131072',
      MALLOC_TOP_PAD_: '0',
    });
  });

  test("an operator's own tunables replace svc's thresholds (glibc's order between the two spellings is the environment's)", () => {
    assert.deepEqual(runnerEnvironment({ GLIBC_TUNABLES: 'glibc.malloc.mmap_threshold=65536' }), { MALLOC_ARENA_MAX: '2', GLIBC_TUNABLES: 'glibc.malloc.mmap_threshold=65536' });
    assert.deepEqual(runnerEnvironment({ MALLOC_TRIM_THRESHOLD_: '0' }), { MALLOC_ARENA_MAX: '2', MALLOC_TRIM_THRESHOLD_: '0' });
    assert.deepEqual(runnerEnvironment({ MALLOC_ARENA_MAX: '4' }), { ...ALLOCATOR, MALLOC_ARENA_MAX: '4' });
  });

  test("the memory soak's report variable passes only as '1'", () => {
    assert.equal(runnerEnvironment({ SVC_BENCH_RUNNER_MEMORY: '1' }).SVC_BENCH_RUNNER_MEMORY, '1');
    assert.equal('SVC_BENCH_RUNNER_MEMORY' in runnerEnvironment({ SVC_BENCH_RUNNER_MEMORY: '/tmp/x' }), false);
    assert.equal('SVC_BENCH_RUNNER_MEMORY' in runnerEnvironment({}), false);
  });

  test('the test flag passes with the server pid only when set', () => {
    assert.deepEqual(runnerEnvironment({ SVC_TEST_RUNNER_SELF_TEST: '{}' }), { ...ALLOCATOR, SVC_TEST_RUNNER_SELF_TEST: '{}', SVC_TEST_RUNNER_SERVER_PID: String(process.pid) });
    assert.equal(runnerEnvironment({}).SVC_TEST_RUNNER_SERVER_PID, undefined);
  });

  test("the break hook's mark passes only when set", () => {
    assert.deepEqual(runnerEnvironment({ SVC_TEST_RUNNER_BREAK_MARK: 'svc-test-break-this-runner' }), { ...ALLOCATOR, SVC_TEST_RUNNER_BREAK_MARK: 'svc-test-break-this-runner' });
    assert.equal('SVC_TEST_RUNNER_BREAK_MARK' in runnerEnvironment({ TZ: 'UTC' }), false);
  });
});

describe('levels', () => {
  test('every feature is full, the environment alone is env-only, anything between is partial naming the rest', () => {
    assert.deepEqual(levelOf([...SANDBOX_FEATURES]), { level: 'full', missing: [] });
    assert.deepEqual(levelOf(['environment']), { level: 'env-only', missing: SANDBOX_FEATURES.filter((f) => f !== 'environment') });
    assert.deepEqual(levelOf(['environment', 'user', 'no_new_privs', 'capabilities', 'network']), { level: 'partial', missing: ['processes', 'filesystem', 'seccomp'] });
  });
});

describe('wrappers', () => {
  const tools = { bwrap: '/usr/bin/bwrap', unshare: '/usr/bin/unshare', setpriv: '/usr/bin/setpriv' };
  const host = (root: boolean, only: Host['tools'] = tools): Host => ({ tools: only, root, runnerUser: { uid: 65534, gid: 65534 } });

  test('as root: bubblewrap first, dropping to the runner user inside its view, then unshare, then setpriv', () => {
    const [bwrap, unshare, setpriv] = candidateWrappers(host(true), entry);
    assert.deepEqual([bwrap!.name, unshare!.name, setpriv!.name], ['bubblewrap', 'unshare', 'setpriv']);
    for (const flag of ['--unshare-net', '--unshare-pid', '--unshare-ipc', '--die-with-parent', '--new-session']) assert.ok(bwrap!.prefix.includes(flag), flag);
    assert.ok(!bwrap!.prefix.includes('--unshare-user'), 'root needs no user namespace to build the view');
    const inside = bwrap!.prefix.slice(bwrap!.prefix.indexOf('--') + 1);
    assert.deepEqual(inside, ['/usr/bin/setpriv', '--reuid=65534', '--regid=65534', '--clear-groups', '--inh-caps=-all', '--bounding-set=-all', '--no-new-privs', '--']);
    assert.ok(unshare!.prefix.includes('--net') && unshare!.prefix.includes('--reuid=65534'));
  });

  test('the view binds the runner code\'s package parts read-only, never the whole tree', () => {
    const [bwrap] = candidateWrappers(host(true), entry);
    const binds = bwrap!.prefix.flatMap((arg, i) => (arg === '--ro-bind' ? [bwrap!.prefix[i + 1]!] : []));
    for (const part of ['package.json', 'node_modules', 'sandbox', 'src']) assert.ok(binds.includes(path.join(root, part)), part);
    assert.ok(!binds.includes(root), 'not the repository root');
    assert.ok(!binds.some((b) => b === '/' || b === '/etc' || b === '/tmp' || b === '/home' || b === '/root'));
  });

  test('as another user: bubblewrap in a user namespace without setpriv; none of the tools, no wrapper', () => {
    const [bwrap] = candidateWrappers(host(false), entry);
    assert.ok(bwrap!.prefix.includes('--unshare-user'));
    assert.equal(bwrap!.prefix.at(-1), '--');
    assert.deepEqual(candidateWrappers(host(true, {}), entry), []);
    assert.deepEqual(candidateWrappers(host(true, { bwrap: '/usr/bin/bwrap' }), entry), [], 'root without setpriv could not leave root');
  });
});

describe('seccomp filter', () => {
  test('x86-64: checks the architecture, refuses x32 numbering and socket (41) and connect (42), allows the rest', () => {
    const filter = seccompFilter('x64')!;
    assert.equal(filter.length % 8, 0);
    const instructions = Array.from({ length: filter.length / 8 }, (_, i) => ({ code: filter.readUInt16LE(i * 8), jt: filter[i * 8 + 2]!, jf: filter[i * 8 + 3]!, k: filter.readUInt32LE(i * 8 + 4) }));
    assert.deepEqual(instructions[0], { code: 0x20, jt: 0, jf: 0, k: 4 }, 'loads seccomp_data.arch');
    assert.equal(instructions[1]!.k, 0xc000003e);
    assert.equal(instructions.at(-2)!.k, 0x7fff0000, 'allow');
    assert.equal(instructions.at(-1)!.k, 0x00050001, 'EPERM');
    // Simulate: every jump lands inside the program, and socket/connect reach the refusal.
    const run = (arch: number, nr: number): number => {
      let accumulator = 0;
      for (let pc = 0; pc < instructions.length; ) {
        const { code, jt, jf, k } = instructions[pc]!;
        if (code === 0x06) return k;
        if (code === 0x20) accumulator = k === 4 ? arch : nr;
        else if (code === 0x15 || code === 0x35) pc += code === 0x15 ? (accumulator === k ? jt : jf) : accumulator >= k ? jt : jf;
        else assert.fail(`unexpected opcode ${code}`);
        pc++;
      }
      return assert.fail('ran off the end');
    };
    assert.equal(run(0xc000003e, 41), 0x00050001);
    assert.equal(run(0xc000003e, 42), 0x00050001);
    assert.equal(run(0xc000003e, 101), 0x00050001, 'ptrace');
    assert.equal(run(0xc000003e, 0x40000000 + 41), 0x00050001, 'x32 socket');
    assert.equal(run(0x40000003, 41), 0x00050001, 'i386 numbering');
    assert.equal(run(0xc000003e, 0), 0x7fff0000, 'read');
    assert.equal(run(0xc000003e, 59), 0x7fff0000, 'execve: bubblewrap execs the runner after loading the filter');
  });

  test('an architecture without a table gets no filter (the level then says seccomp is missing)', () => {
    assert.equal(seccompFilter('ia32'), null);
    assert.ok(seccompFilter('arm64'));
  });
});
