// The host dispatcher: every operation declares its gate and is gated before it runs;
// writers live behind host-side handles re-checked on use; refusals it issued are
// remembered; the registry refuses an operation that declares no gate.
import { describe, test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { HostDispatcher, MAX_CHECK_CONTEXT_CHARS } from '../../../src/execution';
import { parsePermissionPolicy, PermissionDeniedError, RunDecisions, type PermissionPolicy } from '../../../src/policy';
import { checkModule, hostModules, type HostModule } from '../../../src/stdlib';
import { FileAreas } from '../../../src/vfs';
import { tempDir } from '../../harness';

function policyOf(permissions: unknown): PermissionPolicy {
  const parsed = parsePermissionPolicy('deny', permissions);
  if ('error' in parsed) throw new Error(parsed.error.message);
  return parsed.policy;
}

const policy = policyOf({
  main: [
    { capability: 'fs.write', filter: 'path == "/allowed.txt"', action: 'allow' },
    { capability: 'fs.read', action: 'allow' },
  ],
});

const home = tempDir('svc-dispatch-');
after(() => fs.rmSync(home, { recursive: true, force: true }));
const areas = new FileAreas({ paths: { vfsEphemeralDir: path.join(home, 'eph'), vfsSessionDir: path.join(home, 'sessions') }, volumes: [] } as never);
let runs = 0;

function dispatcher() {
  const runId = `r${++runs}`;
  const files = areas.open({ mode: 'ephemeral', cwd: '/' }, { sessionId: 's', runId });
  const written: Array<Record<string, unknown>> = [];
  const decisions = new RunDecisions(
    { execution_id: runId, session_id: 's', blueprint: 'bp', blueprint_hash: 'h'.repeat(64), principal: 'p', cwd: '/', variables: {}, policy },
    { write: (record) => written.push(record as Record<string, unknown>) },
    'all',
  );
  const host = new HostDispatcher({
    run: { executionId: runId, sessionId: 's', principal: 'p', blueprintName: 'bp', variables: {}, signal: new AbortController().signal, services: { files } },
    modules: hostModules(),
    decisions,
  });
  return { host, files, written };
}

const bytes = (text: string) => new Uint8Array(Buffer.from(text));

describe('writers', () => {
  test('commitWriter writes the target checked at open, whatever the guest sends back', async () => {
    const { host, files } = dispatcher();
    const opened = (await host.invoke('svc:fs', 'openWriter', ['/allowed.txt'])) as { handle: number; path: string };
    assert.equal(opened.path, '/allowed.txt');
    await host.invoke('svc:fs', 'commitWriter', [opened.handle, bytes('hello')]);
    assert.equal(fs.readFileSync(files.resolve('/allowed.txt').hostPath, 'utf8'), 'hello');
    assert.equal(fs.existsSync(files.resolve('/secret.txt').hostPath), false);
  });

  test('a path, an unknown handle or a handle used twice is refused as a TypeError and writes nothing', async () => {
    const { host, files } = dispatcher();
    await assert.rejects(host.invoke('svc:fs', 'commitWriter', ['/secret.txt', bytes('x')]), (e: Error) => e.name === 'TypeError' && /closed or was never opened/.test(e.message));
    await assert.rejects(host.invoke('svc:fs', 'commitWriter', [99, bytes('x')]), TypeError);
    const { handle } = (await host.invoke('svc:fs', 'openWriter', ['/allowed.txt'])) as { handle: number };
    await host.invoke('svc:fs', 'commitWriter', [handle, bytes('one')]);
    await assert.rejects(host.invoke('svc:fs', 'commitWriter', [handle, bytes('two')]), TypeError);
    assert.equal(fs.readFileSync(files.resolve('/allowed.txt').hostPath, 'utf8'), 'one');
    assert.equal(fs.existsSync(files.resolve('/secret.txt').hostPath), false);
  });

  test('a handle from another run is not valid in this one', async () => {
    const first = dispatcher();
    const second = dispatcher();
    const { handle } = (await first.host.invoke('svc:fs', 'openWriter', ['/allowed.txt'])) as { handle: number };
    await assert.rejects(second.host.invoke('svc:fs', 'commitWriter', [handle, bytes('x')]), TypeError);
  });

  test('opening a writer where the policy forbids is a denial the dispatcher remembers', async () => {
    const { host, written } = dispatcher();
    await assert.rejects(host.invoke('svc:fs', 'openWriter', ['/secret.txt']), PermissionDeniedError);
    assert.deepEqual(host.denials, [{ caller: 'main', capability: 'fs.write', source: 'policy' }]);
    assert.equal(written.filter((r) => r.decision === 'deny').length, 1);
  });

  test('the commit is gated again with the handle’s path (a second allow is recorded)', async () => {
    const { host, written } = dispatcher();
    const { handle } = (await host.invoke('svc:fs', 'openWriter', ['/allowed.txt'])) as { handle: number };
    await host.invoke('svc:fs', 'commitWriter', [handle, bytes('x')]);
    const allows = written.filter((r) => r.decision === 'allow' && r.capability === 'fs.write');
    assert.equal(allows.length, 2);
    assert.deepEqual(allows.map((r) => (r.context as Record<string, unknown>).path), ['/allowed.txt', '/allowed.txt']);
  });
});

describe('gating is structural', () => {
  test('the gate sees the normalised path and the operation works on it', async () => {
    const { host, files } = dispatcher();
    await host.invoke('svc:fs', 'writeText', ['/x/../allowed.txt', 'normalised']);
    assert.equal(fs.readFileSync(files.resolve('/allowed.txt').hostPath, 'utf8'), 'normalised');
    await assert.rejects(host.invoke('svc:fs', 'writeText', ['/../etc/passwd', 'x']), (e: PermissionDeniedError) => e.source === 'invariant');
  });

  test('a check context over 64 KiB of text is a RangeError before any rule or record; the same check within it is decided', async () => {
    const { host, written } = dispatcher();
    const huge = `/${'a'.repeat(MAX_CHECK_CONTEXT_CHARS)}`;
    await assert.rejects(host.invoke('svc:fs', 'readText', [huge]), (e: Error) => e.name === 'RangeError' && /^fs\.read: `path` is 65537 characters long/.test(e.message));
    await assert.rejects(host.invoke('svc:fs', 'writeText', [huge, 'x']), RangeError);
    assert.equal(written.length, 0, 'no decision was made or written');
    assert.equal(host.denials.length, 0);
    // Nested text counts too (a Package's check() context is the guest's own object).
    const nested = { rows: Array.from({ length: 100 }, () => ({ note: 'n'.repeat(1000) })) };
    await assert.rejects(host.invoke('svc:security', 'check', ['acme.com/op', nested]), (e: Error) => e.name === 'RangeError' && /`rows` holds too much text/.test(e.message));
    await assert.rejects(host.invoke('svc:fs', 'readText', [`/${'a'.repeat(1000)}`]), (e: Error) => e.name !== 'RangeError' && e.message.startsWith('fs.readText /aaa'));
    assert.equal(written.length, 1, 'a path within the bound is decided and recorded');
  });

  test('an unknown operation or one inherited from Object.prototype is a TypeError', async () => {
    const { host } = dispatcher();
    await assert.rejects(host.invoke('svc:fs', 'nope', []), TypeError);
    await assert.rejects(host.invoke('svc:fs', 'toString', []), TypeError);
    await assert.rejects(host.invoke('svc:nope', 'read', []), TypeError);
  });

  test('the runner handler never throws: failures are error replies', async () => {
    const { host } = dispatcher();
    const reply = await host.handle({ module: 'svc:fs', op: 'readText', args: null as never, fuelLeft: 0 });
    assert.equal(reply.ok, false);
  });

  test('every registered operation declares its gate, or none with a reason', () => {
    for (const module of hostModules().values()) {
      for (const [name, operation] of Object.entries(module.operations)) {
        const declared = operation as { gate: unknown; ungatedBecause?: string };
        assert.ok(typeof declared.gate === 'function' || (declared.gate === 'none' && (declared.ungatedBecause ?? '').length > 10), `${module.name}.${name}`);
      }
    }
  });

  test('a module with an operation that declares no gate cannot be registered', () => {
    const base = { name: 'svc:bad', description: '', declarations: '' };
    assert.throws(() => checkModule({ ...base, operations: { leak: ((_call: unknown, args: unknown[]) => args) as never } } as HostModule), /svc:bad\.leak cannot be registered/);
    assert.throws(() => checkModule({ ...base, operations: { leak: { gate: 'none', ungatedBecause: ' ', run: () => 1 } } } as HostModule), /cannot be registered/);
    assert.doesNotThrow(() => checkModule({ ...base, operations: { pure: { gate: 'none', ungatedBecause: 'pure arithmetic', run: () => 1 } } } as HostModule));
  });
});
