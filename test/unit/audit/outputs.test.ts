// Unit tests for openLogOutputs: the server log and the audit writer over standard output
// and files, SIGHUP reopen after rotation, separate audit file, disabled audit, size limit,
// and failures that are reported on standard error instead of thrown.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { auditRecordFits, LogOpenError, openLogOutputs, parseLogfmt, type AuditRecord, type LogOutputOptions } from '../../../src/audit';
import { tempDir as freshTempDir } from '../../support/temp-dirs';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const fixedClock = () => new Date('2026-03-02T09:15:04.112Z');

function tempDir(): string {
  return freshTempDir('svc-');
}

function counterIds(): () => string {
  let n = 0;
  return () => `00000000-0000-4000-8000-${String(++n).padStart(12, '0')}`;
}

/** Opens outputs writing "standard output" into memory and collecting stderr reports. */
function memoryOutputs(overrides: Partial<LogOutputOptions> = {}) {
  const chunks: string[] = [];
  const stderr: string[] = [];
  const stdout = new Writable({
    write(chunk, _encoding, done) {
      chunks.push(chunk.toString());
      done();
    },
  });
  const outputs = openLogOutputs({
    logFile: null,
    filter: null,
    audit: { enabled: true, file: null },
    clock: fixedClock,
    newId: counterIds(),
    stderr: (line) => stderr.push(line),
    stdout,
    ...overrides,
  });
  // Records are written when the event-loop turn that wrote them ends.
  const lines = async () => {
    await endOfTurn();
    return chunks.join('').split('\n').filter((l) => l !== '');
  };
  return { outputs, chunks, stderr, lines };
}

/** Resolves after the writes batched in this turn have gone out. */
function endOfTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

function readLines(file: string): string[] {
  return fs.existsSync(file) ? fs.readFileSync(file, 'utf8').split('\n').filter((l) => l !== '') : [];
}

const started: AuditRecord = { type: 'server', event: 'started', version: '0.1.0', settings_hash: 'ab'.repeat(32), allow_unauthenticated: false, egress_grants: ['SVC_ALLOW_LOCALHOST'] };

describe('server log', () => {
  test('log records have the header then the fields in call-site order', async () => {
    const { outputs, lines } = memoryOutputs();
    outputs.log.info('svc_server::serve', 'svc-server listening', { protocol: 'http', addr: '127.0.0.1:8128' });
    assert.deepEqual(await lines(), ['ts=2026-03-02T09:15:04.112Z level=info stream=log target=svc_server::serve msg="svc-server listening" protocol=http addr=127.0.0.1:8128']);
  });

  test('records below the RUST_LOG level are not written and enabled() agrees', async () => {
    const { outputs, lines } = memoryOutputs({ filter: 'warn,svc_server::auth=debug' });
    outputs.log.info('svc_server::serve', 'dropped');
    outputs.log.warn('svc_server::serve', 'kept warn');
    outputs.log.debug('svc_server::auth', 'kept debug');
    outputs.log.trace('svc_server::auth', 'dropped');
    assert.deepEqual((await lines()).map((l) => Object.fromEntries(parseLogfmt(l)).msg), ['kept warn', 'kept debug']);
    assert.equal(outputs.log.enabled('svc_server::auth', 'debug'), true);
    assert.equal(outputs.log.enabled('svc_server::serve', 'info'), false);
  });

  test('an invalid RUST_LOG warns on stderr and logs at info', async () => {
    const { outputs, lines, stderr } = memoryOutputs({ filter: 'loud' });
    outputs.log.info('svc_server::serve', 'shown');
    outputs.log.debug('svc_server::serve', 'hidden');
    assert.equal((await lines()).length, 1);
    assert.equal(stderr.length, 1);
    assert.match(stderr[0], /invalid RUST_LOG/);
  });

  test('audit records are not filtered by RUST_LOG', async () => {
    const { outputs, lines } = memoryOutputs({ filter: 'off' });
    outputs.log.error('svc_server::serve', 'hidden');
    outputs.audit.write({ type: 'server', event: 'stopped' });
    assert.equal((await lines()).length, 1);
    assert.match((await lines())[0], /stream=audit/);
  });

  test('reopen() with standard output only does nothing and says so', async () => {
    const { outputs, lines } = memoryOutputs();
    assert.equal(outputs.reopen(), false);
    outputs.log.info('svc_server::serve', 'after');
    assert.equal((await lines()).length, 1);
  });

  test('a log record with an invalid field is dropped whole and reported, not thrown', async () => {
    const { outputs, lines, stderr } = memoryOutputs();
    assert.doesNotThrow(() => outputs.log.info('svc_server::serve', 'bad', { 'a b': 1 }));
    assert.doesNotThrow(() => outputs.log.info('svc_server::serve', 'big', { x: 'a'.repeat(1_048_576) }));
    assert.deepEqual(await lines(), []);
    assert.deepEqual(stderr, Array(2).fill('cannot format server log: invalid field, timestamp, or record exceeds 1 MiB'));
  });

  test('a throwing clock does not throw into the caller', async () => {
    const { outputs, stderr } = memoryOutputs({
      clock: () => {
        throw new Error('clock broke');
      },
    });
    assert.doesNotThrow(() => outputs.log.info('svc_server::serve', 'x'));
    assert.doesNotThrow(() => outputs.audit.write({ type: 'server', event: 'stopped' }));
    assert.equal(stderr.length, 2);
  });
});

describe('audit writer', () => {
  test('an audit record has the fixed header, then every field in alphabetical order', async () => {
    const { outputs, lines } = memoryOutputs();
    outputs.audit.write(started);
    assert.deepEqual(await lines(), [
      'ts=2026-03-02T09:15:04.112Z level=info stream=audit target=svc_server::audit msg=server allow_unauthenticated=false egress_grants.0=SVC_ALLOW_LOCALHOST event=started event_id=00000000-0000-4000-8000-000000000001 schema=svc.audit/1 settings_hash=' +
        'ab'.repeat(32) +
        ' type=server version=0.1.0',
    ]);
  });

  test('an admin record writes old_hash=null and renames header-named extras', async () => {
    const { outputs, lines } = memoryOutputs();
    outputs.audit.write({ type: 'admin', event: 'blueprint_created', principal: 'ops', route: '/v1/blueprints/notes', status: 201, outcome: 'ok', name: 'notes', new_hash: 'cd'.repeat(32), old_hash: null, msg: 'extra' });
    const pairs = parseLogfmt((await lines())[0]);
    const record = Object.fromEntries(pairs);
    assert.equal(record.old_hash, 'null');
    assert.equal(record.status, '201');
    assert.equal(record.msg, 'admin');
    assert.equal(record['fields.msg'], 'extra');
    const keys = pairs.slice(5).map(([k]) => k);
    assert.deepEqual(keys, [...keys].sort());
  });

  test('an execution record flattens vars by position with vars.2 before vars.10', async () => {
    const { outputs, lines } = memoryOutputs();
    const vars = Array.from({ length: 12 }, (_, i) => ({ name: `v${String(i).padStart(2, '0')}`, value: String(i) }));
    outputs.audit.write({ type: 'execution', event: 'started', execution_id: 'e1', entry_point: 'http', principal: 'harness', blueprint: 'bp', vars, source_hash: 'h', source_size: 3 });
    const keys = parseLogfmt((await lines())[0]).map(([k]) => k);
    assert.ok(keys.indexOf('vars.2.name') < keys.indexOf('vars.10.name'));
    assert.equal(keys.filter((k) => k.startsWith('vars.')).length, 24);
    assert.ok(!keys.includes('outcome'), 'undefined optional fields are omitted');
  });

  test('event_id comes from the id generator for every record', async () => {
    const { outputs, lines } = memoryOutputs();
    outputs.audit.write({ type: 'server', event: 'stopped' });
    outputs.audit.write({ type: 'server', event: 'stopped' });
    assert.deepEqual(
      (await lines()).map((l) => Object.fromEntries(parseLogfmt(l)).event_id),
      ['00000000-0000-4000-8000-000000000001', '00000000-0000-4000-8000-000000000002'],
    );
  });

  test('the default id generator produces UUID v4', async () => {
    const { outputs, lines } = memoryOutputs({ newId: undefined });
    outputs.audit.write({ type: 'server', event: 'stopped' });
    assert.match(Object.fromEntries(parseLogfmt((await lines())[0])).event_id, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  test('disabled audit writes nothing and does not create the audit file', async () => {
    const dir = tempDir();
    const auditFile = path.join(dir, 'audit.log');
    const { outputs, lines, stderr } = memoryOutputs({ audit: { enabled: false, file: auditFile } });
    outputs.audit.write(started);
    outputs.close();
    assert.deepEqual(await lines(), []);
    assert.equal(fs.existsSync(auditFile), false);
    assert.deepEqual(stderr, []);
  });

  test('a record over 1 MiB is dropped whole with a stderr report and later records still go out', async () => {
    const { outputs, lines, stderr } = memoryOutputs();
    outputs.audit.write({ type: 'admin', event: 'x', principal: 'p', route: '/', status: 200, outcome: 'ok', blob: 'a'.repeat(1_048_576) });
    outputs.audit.write({ type: 'server', event: 'stopped' });
    assert.equal((await lines()).length, 1);
    assert.match((await lines())[0], /msg=server/);
    assert.deepEqual(stderr, ['cannot format server log: invalid field, timestamp, or record exceeds 1 MiB']);
  });
});

describe('auditRecordFits', () => {
  test('tells whether a record is within the 1 MiB limit as the writer would encode it', async () => {
    const record = (size: number): AuditRecord => ({ type: 'admin', event: 'x', principal: 'p', route: '/', status: 200, outcome: 'ok', blob: 'a'.repeat(size) });
    const { outputs, lines } = memoryOutputs();
    outputs.audit.write(record(0));
    const room = 1_048_576 - (Buffer.byteLength((await lines())[0]) - 2);
    assert.equal(auditRecordFits(record(room)), true);
    assert.equal(auditRecordFits(record(room + 1)), false);
    assert.equal(auditRecordFits({ type: 'admin', event: 'x', principal: 'p', route: '/', status: 200, outcome: 'ok', 'bad key': 1 }), false);
  });
});

describe('files', () => {
  test('the log file is appended to, keeping earlier contents', () => {
    const dir = tempDir();
    const logFile = path.join(dir, 'svc.log');
    fs.writeFileSync(logFile, 'earlier line\n');
    const outputs = openLogOutputs({ logFile, filter: null, audit: { enabled: true, file: null }, stderr: () => {} });
    outputs.log.info('svc_server::serve', 'one');
    outputs.audit.write({ type: 'server', event: 'stopped' });
    outputs.close();
    const lines = readLines(logFile);
    assert.equal(lines[0], 'earlier line');
    assert.match(lines[1], /stream=log .*msg=one/);
    assert.match(lines[2], /stream=audit/);
  });

  test('a separate audit file receives only audit records', () => {
    const dir = tempDir();
    const logFile = path.join(dir, 'svc.log');
    const auditFile = path.join(dir, 'audit.log');
    const outputs = openLogOutputs({ logFile, filter: null, audit: { enabled: true, file: auditFile }, stderr: () => {} });
    outputs.log.info('svc_server::serve', 'one');
    outputs.audit.write({ type: 'server', event: 'stopped' });
    outputs.close();
    assert.deepEqual(readLines(logFile).map((l) => Object.fromEntries(parseLogfmt(l)).stream), ['log']);
    assert.deepEqual(readLines(auditFile).map((l) => Object.fromEntries(parseLogfmt(l)).stream), ['audit']);
  });

  test('reopen() after an external rename writes new records to a fresh file at the path', () => {
    const dir = tempDir();
    const logFile = path.join(dir, 'svc.log');
    const auditFile = path.join(dir, 'audit.log');
    const outputs = openLogOutputs({ logFile, filter: null, audit: { enabled: true, file: auditFile }, stderr: () => {} });
    outputs.log.info('svc_server::serve', 'before');
    outputs.audit.write({ type: 'server', event: 'started', version: '1', settings_hash: 'h', allow_unauthenticated: false });
    fs.renameSync(logFile, `${logFile}.1`);
    fs.renameSync(auditFile, `${auditFile}.1`);
    outputs.log.info('svc_server::serve', 'still old file');
    assert.equal(outputs.reopen(), true);
    outputs.log.info('svc_server::serve', 'after');
    outputs.audit.write({ type: 'server', event: 'stopped' });
    outputs.close();
    assert.deepEqual(readLines(`${logFile}.1`).map((l) => Object.fromEntries(parseLogfmt(l)).msg), ['before', 'still old file']);
    assert.deepEqual(readLines(logFile).map((l) => Object.fromEntries(parseLogfmt(l)).msg), ['after']);
    assert.deepEqual(readLines(`${auditFile}.1`).map((l) => Object.fromEntries(parseLogfmt(l)).event), ['started']);
    assert.deepEqual(readLines(auditFile).map((l) => Object.fromEntries(parseLogfmt(l)).event), ['stopped']);
  });

  test('a failed reopen keeps writing to the old file and reports on stderr', () => {
    const dir = tempDir();
    const sub = path.join(dir, 'logs');
    fs.mkdirSync(sub);
    const logFile = path.join(sub, 'svc.log');
    const stderr: string[] = [];
    const outputs = openLogOutputs({ logFile, filter: null, audit: { enabled: true, file: null }, stderr: (l) => stderr.push(l) });
    outputs.log.info('svc_server::serve', 'before');
    fs.renameSync(sub, path.join(dir, 'moved'));
    assert.doesNotThrow(() => outputs.reopen());
    outputs.log.info('svc_server::serve', 'after');
    outputs.close();
    assert.equal(stderr.length, 1);
    assert.match(stderr[0], /cannot reopen server log .*svc\.log/);
    assert.deepEqual(readLines(path.join(dir, 'moved', 'svc.log')).map((l) => Object.fromEntries(parseLogfmt(l)).msg), ['before', 'after']);
  });

  test('reopen() refuses a path that became a directory and keeps the old file', () => {
    const dir = tempDir();
    const logFile = path.join(dir, 'svc.log');
    const stderr: string[] = [];
    const outputs = openLogOutputs({ logFile, filter: null, audit: { enabled: true, file: null }, stderr: (l) => stderr.push(l) });
    fs.renameSync(logFile, `${logFile}.1`);
    fs.mkdirSync(logFile);
    outputs.reopen();
    outputs.log.info('svc_server::serve', 'kept');
    outputs.close();
    assert.match(stderr[0], /not a regular file/);
    assert.equal(readLines(`${logFile}.1`).length, 1);
  });

  test('an unopenable log file throws LogOpenError naming the path', () => {
    const dir = tempDir();
    for (const logFile of [path.join(dir, 'missing', 'svc.log'), dir]) {
      assert.throws(
        () => openLogOutputs({ logFile, filter: null, audit: { enabled: true, file: null }, stderr: () => {} }),
        (error: unknown) => error instanceof LogOpenError && error.code === 'log_open_failed' && error.message.startsWith(`cannot open server log ${logFile}: `),
      );
    }
  });

  test('an unopenable audit file does not stop startup; each record retries the open and reports', async () => {
    const dir = tempDir();
    const auditDir = path.join(dir, 'audit');
    const auditFile = path.join(auditDir, 'audit.log');
    const { outputs, lines, stderr } = memoryOutputs({ audit: { enabled: true, file: auditFile } });
    assert.equal(stderr.length, 1, 'the failed open at startup is reported');
    assert.doesNotThrow(() => outputs.audit.write({ type: 'server', event: 'stopped' }));
    await endOfTurn();
    assert.equal(stderr.length, 2, 'the failed retry is reported');
    assert.match(stderr[1], /cannot open server log .*audit\.log/);
    fs.mkdirSync(auditDir);
    outputs.audit.write({ type: 'server', event: 'stopped' });
    outputs.close();
    assert.equal(stderr.length, 2);
    assert.equal(readLines(auditFile).length, 1);
    assert.deepEqual(await lines(), [], 'audit records never fall back to the log output');
  });

  test('records written concurrently from many async tasks are whole lines that all parse', async () => {
    const dir = tempDir();
    const logFile = path.join(dir, 'svc.log');
    const outputs = openLogOutputs({ logFile, filter: null, audit: { enabled: true, file: null }, stderr: () => {} });
    const tasks = Array.from({ length: 50 }, async (_, task) => {
      for (let i = 0; i < 20; i++) {
        await new Promise((resolve) => setImmediate(resolve));
        outputs.audit.write({ type: 'admin', event: 'x', principal: `task${task}`, route: '/', status: 200, outcome: 'ok', seq: i, payload: `${task} `.repeat(2000 + task * 10) });
        outputs.log.info('svc_server::test', 'line', { task, i, text: 'x y'.repeat(500) });
      }
    });
    await Promise.all(tasks);
    outputs.close();
    const lines = readLines(logFile);
    assert.equal(lines.length, 2000);
    for (const line of lines) {
      const record = Object.fromEntries(parseLogfmt(line));
      assert.ok(record.stream === 'audit' || record.stream === 'log');
      if (record.stream === 'audit') assert.equal(record.payload, `${record.principal.slice(4)} `.repeat(2000 + Number(record.principal.slice(4)) * 10));
      else assert.equal(record.text, 'x y'.repeat(500));
    }
  });
});

describe('one write per event-loop turn', () => {
  test('the records of one turn land together when it ends, in the order written, interleaved with the log as written', async () => {
    const dir = tempDir();
    const logFile = path.join(dir, 'svc.log');
    const outputs = openLogOutputs({ logFile, filter: null, audit: { enabled: true, file: null }, newId: counterIds(), stderr: () => {} });
    for (let i = 0; i < 5; i++) {
      outputs.audit.write({ type: 'admin', event: 'x', principal: 'p', route: '/', status: 200, outcome: 'ok', seq: i });
      outputs.log.info('svc_server::test', 'between', { seq: i });
    }
    assert.deepEqual(readLines(logFile), [], 'nothing is written before the turn ends');
    await endOfTurn();
    const written = readLines(logFile).map((l) => Object.fromEntries(parseLogfmt(l)));
    assert.deepEqual(
      written.map((r) => `${r.stream}:${r.seq}`),
      [0, 1, 2, 3, 4].flatMap((i) => [`audit:${i}`, `log:${i}`]),
    );
    assert.deepEqual(written.filter((r) => r.stream === 'audit').map((r) => r.event_id), [1, 2, 3, 4, 5].map((n) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`));
    outputs.audit.write({ type: 'server', event: 'stopped' });
    outputs.close();
    assert.equal(readLines(logFile).length, 11, 'close writes what the turn held');
  });

  test('a separate audit file gets its records once per turn; the log file is written at once', async () => {
    const dir = tempDir();
    const logFile = path.join(dir, 'svc.log');
    const auditFile = path.join(dir, 'audit.log');
    const outputs = openLogOutputs({ logFile, filter: null, audit: { enabled: true, file: auditFile }, stderr: () => {} });
    outputs.audit.write({ type: 'server', event: 'started', version: '1', settings_hash: 'h', allow_unauthenticated: false });
    outputs.audit.write({ type: 'server', event: 'stopped' });
    outputs.log.info('svc_server::serve', 'now');
    assert.equal(readLines(logFile).length, 1);
    assert.deepEqual(readLines(auditFile), []);
    await endOfTurn();
    assert.deepEqual(readLines(auditFile).map((l) => Object.fromEntries(parseLogfmt(l)).event), ['started', 'stopped']);
    outputs.close();
  });

  test('records held when the process dies of an uncaught exception are written before it exits', () => {
    const dir = tempDir();
    const auditFile = path.join(dir, 'audit.log');
    const script = [
      "import { openLogOutputs } from './src/audit';",
      `const outputs = openLogOutputs({ logFile: null, filter: null, audit: { enabled: true, file: ${JSON.stringify(auditFile)} } });`,
      "for (let i = 0; i < 3; i++) outputs.audit.write({ type: 'admin', event: 'x', principal: 'p', route: '/', status: 200, outcome: 'ok', seq: i });",
      "throw new Error('crash');",
    ].join('\n');
    const result = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: repoRoot, encoding: 'utf8', timeout: 60_000 });
    assert.notEqual(result.status, 0, 'the process died');
    assert.match(result.stderr, /crash/);
    assert.deepEqual(readLines(auditFile).map((l) => Object.fromEntries(parseLogfmt(l)).seq), ['0', '1', '2']);
  });
});

describe('standard output failures', () => {
  test('a failing standard output is reported on stderr and the caller keeps running', () => {
    const script = [
      "import { openLogOutputs } from './src/audit';",
      "const outputs = openLogOutputs({ logFile: null, filter: null, audit: { enabled: true, file: null } });",
      "outputs.log.info('svc_server::serve', 'one');",
      "outputs.audit.write({ type: 'server', event: 'stopped' });",
      "setImmediate(() => process.stderr.write('still running\\n'));",
    ].join('\n');
    const full = fs.openSync('/dev/full', 'w');
    try {
      const result = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: repoRoot, stdio: ['ignore', full, 'pipe'], encoding: 'utf8', timeout: 60_000 });
      assert.equal(result.status, 0, result.stderr);
      const lines = result.stderr.split('\n').filter((l) => l !== '');
      assert.equal(lines.filter((l) => l.startsWith('cannot write server log to stdout: ')).length, 1, 'one report per failure streak');
      assert.equal(lines.at(-1), 'still running');
    } finally {
      fs.closeSync(full);
    }
  });
});
