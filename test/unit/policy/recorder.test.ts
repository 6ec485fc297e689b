// Decision records of one run: denials at once, allows per
// mode (all, none, summary with its group, context and size limits), further decisions
// from other modules, probes, check() and the quick-search context fields.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { auditRecordFits, encodeAuditRecord, type AuditRecord } from '../../../src/audit';
import { AUDIT_VALUE_CHARS, auditContext, SINGLE_RECORD_BYTES_EACH_RUN, DENIALS_WRITTEN_EACH, SUMMARY_LIMITS, parsePermissionPolicy, PermissionDeniedError, RunDecisions, serverEgressDecision, type AllowsMode, type PermissionPolicy } from '../../../src/policy';

type Written = Record<string, any>;

function policyOf(defaultValue: unknown, permissions: unknown): PermissionPolicy {
  const parsed = parsePermissionPolicy(defaultValue, permissions);
  if ('error' in parsed) throw new Error(parsed.error.message);
  return parsed.policy;
}

const standardPolicy = policyOf('deny', {
  main: [
    { name: 'reads', capability: 'fs.read', filter: 'path glob "/r/*"', action: 'allow' },
    { capability: 'fs.read', action: 'allow' },
    { capability: 'fs.stat', action: 'allow' },
    { capability: 'fs.remove', action: 'ask-human' },
    { capability: 'http.get', action: 'allow' },
    { capability: 'mcp.docs', action: 'allow' },
  ],
});

function recorder(allows: AllowsMode, policy = standardPolicy) {
  const written: Written[] = [];
  const decisions = new RunDecisions(
    { execution_id: 'e1', session_id: 's1', blueprint: 'bp', blueprint_hash: 'h'.repeat(64), principal: 'harness', cwd: '/', variables: {}, policy },
    { write: (record: AuditRecord) => written.push(record as Written) },
    allows,
  );
  return { decisions, written };
}

const isDenied = (source: string) => (error: unknown) => error instanceof PermissionDeniedError && error.source === source;

describe('denials', () => {
  test('a policy denial is written at once with the run fields, rule, fixed reason and context', () => {
    const { decisions, written } = recorder('none');
    assert.throws(() => decisions.gate('main', 'fs.write', { path: '/x/../y', length: 3 }), isDenied('policy'));
    assert.equal(written.length, 1);
    assert.deepEqual(written[0], {
      type: 'decision',
      execution_id: 'e1',
      session_id: 's1',
      blueprint: 'bp',
      blueprint_hash: 'h'.repeat(64),
      principal: 'harness',
      caller: 'main',
      capability: 'fs.write',
      context: { payload_json: '{"path":"/y","length":3}', path: '/y', length: 3 },
      decision: 'deny',
      source: 'policy',
      rule: 'default',
      reason: 'denied by policy',
      allowed_by: `permissions.main: - {capability: fs.write, filter: 'path == "/y"', action: allow}`,
    });
  });

  test('ask-human and invariant denials carry their own fixed reasons; invariants have no rule', () => {
    const { decisions, written } = recorder('none');
    assert.throws(() => decisions.gate('main', 'fs.remove', { path: '/a', recursive: true }), (e: unknown) => e instanceof PermissionDeniedError && /human approval/.test(e.reason));
    assert.throws(() => decisions.gate('main', 'secrets.get', { name: 'API_KEY' }), isDenied('invariant'));
    assert.throws(() => decisions.gate('main', 'fs.read', { path: '/../etc' }), isDenied('invariant'));
    assert.deepEqual(written.map((r) => [r.source, r.rule, r.reason]), [
      ['policy', 3, 'human approval required; treated as deny'],
      ['invariant', undefined, 'refused by runtime invariant'],
      ['invariant', undefined, 'refused by runtime invariant'],
    ]);
    assert.equal(written[2].context.payload_json, '{"path":"/../etc"}', 'an invariant refusal records the context as given');
  });

  test('further refusals by other modules are recorded with the fixed texts of their source', () => {
    const { decisions, written } = recorder('none');
    decisions.record('main', 'fs.write', { path: '/data/x' }, { decision: 'deny', source: 'read_only' });
    decisions.record('main', 'session.write', { key: 'k' }, { decision: 'deny', source: 'quota' });
    decisions.record('main', 'http.get', { host: '10.0.0.1', path: '/' }, { decision: 'deny', source: 'egress_guard' });
    assert.deepEqual(written.map((r) => [r.source, r.reason, r.rule, r.decision]), [
      ['read_only', 'destination volume is read-only', undefined, 'deny'],
      ['quota', 'budget or size limit exceeded', undefined, 'deny'],
      ['egress_guard', 'outbound destination blocked', undefined, 'deny'],
    ]);
  });

  test('an egress refusal with no operation is recorded as caller server, capability network.egress', () => {
    const record = serverEgressDecision({ blueprint: 'bp', blueprint_hash: 'h', principal: 'p', session_id: 's' }, { host: 'internal.example', port: 443 });
    assert.deepEqual(record, {
      type: 'decision',
      session_id: 's',
      blueprint: 'bp',
      blueprint_hash: 'h',
      principal: 'p',
      caller: 'server',
      capability: 'network.egress',
      context: { payload_json: '{"host":"internal.example","port":443}', host: 'internal.example' },
      decision: 'deny',
      source: 'egress_guard',
      reason: 'outbound destination blocked',
    });
  });

  test('refuseInvariant records and throws an invariant PermissionDeniedError', () => {
    const { decisions, written } = recorder('none');
    assert.throws(() => decisions.refuseInvariant('@acme/billing', 'acme.com/x.y', {}, 'program code cannot speak for a package'), isDenied('invariant'));
    assert.deepEqual([written[0].caller, written[0].source, written[0].reason], ['@acme/billing', 'invariant', 'refused by runtime invariant']);
  });
});

describe('allows', () => {
  test('all: one record per allowed operation, immediately, with rule and rule_name', () => {
    const { decisions, written } = recorder('all');
    const decision = decisions.gate('main', 'fs.read', { path: '/r/a' });
    assert.equal(decision.decision, 'allow');
    decisions.gate('main', 'fs.read', { path: '/r/a' });
    decisions.gate('main', 'fs.read', { path: '/other' });
    assert.equal(written.length, 3);
    assert.deepEqual(written.map((r) => [r.decision, r.rule, r.rule_name, r.context.path, r.summary_overflow]), [
      ['allow', 0, 'reads', '/r/a', undefined],
      ['allow', 0, 'reads', '/r/a', undefined],
      ['allow', 1, undefined, '/other', undefined],
    ]);
    decisions.flush();
    assert.equal(written.length, 3, 'nothing is left for the end of the run');
  });

  test('none: no allow records, denials still one by one', () => {
    const { decisions, written } = recorder('none');
    for (let i = 0; i < 100; i++) decisions.gate('main', 'fs.read', { path: `/f${i}` });
    assert.throws(() => decisions.gate('main', 'fs.write', { path: '/x' }));
    decisions.flush();
    assert.deepEqual(written.map((r) => r.decision), ['deny']);
  });

  test('summary: 1,000 reads make one group record at run end with count and the first 10 distinct contexts', () => {
    const { decisions, written } = recorder('summary');
    for (let i = 0; i < 1000; i++) decisions.gate('main', 'fs.read', { path: `/f${i % 20}` });
    assert.throws(() => decisions.gate('main', 'fs.write', { path: '/x' }));
    assert.deepEqual(written.map((r) => r.decision), ['deny'], 'the denial is written at once, the summary waits');
    decisions.flush();
    const group = written[1];
    assert.equal(group.decision, 'allow');
    assert.equal(group.count, 1000);
    assert.equal(group.rule, 1);
    assert.equal(group.context, undefined, 'a group record has no context.*');
    assert.equal(group.contexts.length, 10);
    assert.deepEqual(group.contexts.map((c: Written) => c.path), Array.from({ length: 10 }, (_, i) => `/f${i}`));
    assert.equal(group.contexts[0].payload_json, '{"path":"/f0"}');
    assert.equal(group.summary_overflow, true);
    decisions.flush();
    assert.equal(written.length, 2, 'flushing twice writes nothing new');
  });

  test('summary: repeats of kept contexts are counted without overflow', () => {
    const { decisions, written } = recorder('summary');
    for (let round = 0; round < 5; round++) for (let i = 0; i < 10; i++) decisions.gate('main', 'fs.read', { path: `/f${i}` });
    decisions.flush();
    assert.equal(written.length, 1);
    assert.equal(written[0].count, 50);
    assert.equal(written[0].contexts.length, 10);
    assert.equal(written[0].summary_overflow, undefined);
  });

  test('summary: groups per (caller, capability, rule), written in first-seen order', () => {
    const { decisions, written } = recorder('summary');
    decisions.gate('main', 'fs.stat', { path: '/a' });
    decisions.gate('main', 'fs.read', { path: '/other' });
    decisions.gate('main', 'fs.read', { path: '/r/x' });
    decisions.gate('main', 'fs.stat', { path: '/b' });
    decisions.gate('main', 'fs.read', { path: '/r/y' });
    decisions.flush();
    assert.deepEqual(written.map((r) => [r.capability, r.rule, r.rule_name, r.count]), [
      ['fs.stat', 2, undefined, 2],
      ['fs.read', 1, undefined, 1],
      ['fs.read', 0, 'reads', 2],
    ]);
  });

  test('summary: beyond 1,024 groups each new group is written at once, flagged', () => {
    const { decisions, written } = recorder('summary', policyOf('allow', undefined));
    for (let i = 0; i < 1030; i++) decisions.gate('main', `acme.com/op${i}.run`, { n: i });
    assert.equal(written.length, 6);
    assert.deepEqual(written.map((r) => [r.capability, r.summary_overflow, r.context.payload_json]).slice(0, 2), [
      ['acme.com/op1024.run', true, '{"n":1024}'],
      ['acme.com/op1025.run', true, '{"n":1025}'],
    ]);
    decisions.gate('main', 'acme.com/op0.run', { n: 0 });
    assert.equal(written.length, 6, 'an existing group still just counts');
    decisions.flush();
    assert.equal(written.length, 6 + 1024);
    assert.equal(written[6].capability, 'acme.com/op0.run');
    assert.equal(written[6].count, 2);
  });

  test('summary: past 1 MiB of kept contexts, groups stop keeping contexts and new groups are written at once', () => {
    const { decisions, written } = recorder('summary', policyOf('allow', undefined));
    // About 50 KB of context each (values stay under the per-value cut).
    const big = (i: number) => ({ path: `/f${i}`, blob: Array.from({ length: 50 }, () => 'x'.repeat(1000)) });
    for (let i = 0; i < 10; i++) decisions.gate('main', 'fs.read', big(i));
    for (let i = 10; i < 19; i++) decisions.gate('main', 'fs.write', big(i));
    decisions.gate('main', 'fs.stat', big(19));
    decisions.gate('main', 'fs.stat', big(20));
    assert.equal(written.length, 0);
    decisions.gate('main', 'fs.mkdir', big(21));
    assert.equal(written.length, 1);
    assert.deepEqual([written[0].capability, written[0].summary_overflow, written[0].context.path], ['fs.mkdir', true, '/f21']);
    decisions.gate('main', 'fs.list', { path: '/small' });
    decisions.flush();
    const [, reads, writes, stats, lists] = written;
    assert.deepEqual([reads.capability, reads.count, reads.contexts.length, reads.summary_overflow], ['fs.read', 10, 10, undefined]);
    assert.deepEqual([writes.capability, writes.count, writes.contexts.length], ['fs.write', 9, 9]);
    assert.deepEqual([stats.capability, stats.count, stats.contexts.length, stats.summary_overflow], ['fs.stat', 2, 1, true]);
    assert.deepEqual([lists.capability, lists.count, lists.contexts.length, lists.summary_overflow], ['fs.list', 1, 1, undefined]);
  });

  test('summary: a group record that would encode over 1 MiB drops contexts from the end until it fits', () => {
    const { decisions, written } = recorder('summary', policyOf('allow', undefined));
    // Quotes are escaped twice (JSON, then logfmt): about 120 KB encoded per context.
    for (let i = 0; i < 10; i++) decisions.gate('main', 'acme.com/q.run', { i, quotes: Array.from({ length: 30 }, () => '"'.repeat(1000)) });
    decisions.flush();
    const [group] = written;
    assert.equal(group.count, 10);
    assert.ok(group.contexts.length < 10 && group.contexts.length > 0, `kept ${group.contexts.length}`);
    assert.equal(JSON.parse(group.contexts[0].payload_json).i, 0);
    assert.equal(group.summary_overflow, true);
    assert.ok(auditRecordFits(group as AuditRecord));
    assert.ok(Buffer.byteLength(encodeAuditRecord(group as AuditRecord, new Date(0), '00000000-0000-4000-8000-000000000000')) <= 1_048_576);
  });

  test('a long context value is cut in payload_json with a marker and its byte length; a huge context is replaced by its size', () => {
    const { decisions, written } = recorder('all', policyOf('allow', undefined));
    decisions.gate('main', 'fs.read', { path: `/${'é'.repeat(5000)}` });
    const payload = JSON.parse(written[0].context.payload_json);
    assert.match(payload.path, /^\/é+…\[truncated: 10001 bytes\]$/);
    assert.equal(payload.path.length, AUDIT_VALUE_CHARS + '…[truncated: 10001 bytes]'.length);
    assert.equal(Array.from(written[0].context.path).length, 512, 'the quick-search copy keeps 512 code points');
    decisions.gate('main', 'acme.com/q.run', { rows: Array.from({ length: 100 }, () => 'y'.repeat(1000)) });
    assert.match(JSON.parse(written[1].context.payload_json), /^\[context of \d+ bytes not kept: payload_json keeps at most 65536 characters\]$/);
  });
});

describe('refusals coalesced per run', () => {
  test('after the first five identical refusals the rest are counted into one record at the run\'s end', () => {
    for (const mode of ['summary', 'all', 'none'] as const) {
      const { decisions, written } = recorder(mode, policyOf('deny', undefined));
      for (let i = 0; i < 10_000; i++) assert.throws(() => decisions.gate('main', 'fs.write', { path: `/x${i % 3}` }), isDenied('policy'));
      assert.throws(() => decisions.gate('main', 'fs.read', { path: '/r' }), isDenied('policy'));
      assert.equal(written.length, DENIALS_WRITTEN_EACH + 1, 'the first five, then a different refusal, written at once');
      decisions.flush();
      assert.equal(written.length, DENIALS_WRITTEN_EACH + 2, mode);
      const summary = written.at(-1)!;
      assert.deepEqual([summary.capability, summary.decision, summary.source, summary.rule, summary.reason, summary.count], ['fs.write', 'deny', 'policy', 'default', 'denied by policy', 10_000 - DENIALS_WRITTEN_EACH]);
      assert.deepEqual(summary.contexts.map((c: { path: string }) => c.path).sort(), ['/x0', '/x1', '/x2']);
      assert.equal(summary.context, undefined);
    }
  });
});

describe('refusals bounded per run (red team)', () => {
  test('refusals of ever new capability names are counted together past the kinds a run keeps, not written one by one', () => {
    const { decisions, written } = recorder('summary', policyOf('deny', undefined));
    const runs = SUMMARY_LIMITS.groups + 2000;
    for (let i = 0; i < runs; i++) assert.throws(() => decisions.check('main', `acme.com/op${i}`, {}), isDenied('policy'));
    // One record per kind up to the limit, then five of the overflow bucket; 2,000 were written one each before.
    assert.equal(written.length, SUMMARY_LIMITS.groups + DENIALS_WRITTEN_EACH);
    decisions.flush();
    const counted = written.at(-1)!;
    assert.deepEqual([counted.capability, counted.count, counted.summary_overflow, counted.caller], ['*', 2000 - DENIALS_WRITTEN_EACH, true, 'main']);
  });

  test('refusals with large contexts stop being written one by one once the run wrote a mebibyte of them', () => {
    const { decisions, written } = recorder('none', policyOf('deny', undefined));
    // Each context is about 60 KB (values stay under the per-value cut); one kind per call.
    const big = (i: number) => ({ i, blob: Array.from({ length: 60 }, () => 'x'.repeat(1000)) });
    for (let i = 0; i < 500; i++) assert.throws(() => decisions.check('main', `acme.com/op${i}`, big(i)), isDenied('policy'));
    const bytes = written.reduce((sum, record) => sum + record.context.payload_json.length, 0);
    assert.ok(written.length < 25, `${written.length} refusals written one by one`);
    assert.ok(bytes <= SINGLE_RECORD_BYTES_EACH_RUN + 64 * 1024, `${bytes} characters written`);
    decisions.flush();
    const total = written.reduce((sum, record) => sum + (record.count === undefined ? 1 : Number(record.count)), 0);
    assert.equal(total, 500, 'every refusal is still accounted for');
  });
});

describe('allows past the summary limits (red team)', () => {
  test('allowed checks of ever new names with large contexts are written one by one only up to a mebibyte per run, then counted under \'*\'', () => {
    const { decisions, written } = recorder('summary', policyOf('allow', undefined));
    const big = (i: number) => ({ i, blob: Array.from({ length: 60 }, () => 'x'.repeat(1000)) });
    for (let i = 0; i < 3000; i++) decisions.check('main', `acme.com/op${i}`, big(i));
    // Before: past 1 MiB of kept contexts every new name was written at once, 60 KB each.
    const bytes = written.reduce((sum, record) => sum + record.context.payload_json.length, 0);
    assert.ok(bytes <= SINGLE_RECORD_BYTES_EACH_RUN + 64 * 1024, `${written.length} records, ${bytes} characters written during the run`);
    decisions.flush();
    const counted = written.at(-1)!;
    assert.deepEqual([counted.capability, counted.summary_overflow, counted.rule], ['*', true, undefined]);
    const total = written.reduce((sum, record) => sum + (record.count === undefined ? 1 : Number(record.count)), 0);
    assert.equal(total, 3000, 'every allow is accounted for');
  });
});

describe('probes, checks and context fields', () => {
  test('a probe writes nothing and answers false on a policy denial', () => {
    const { decisions, written } = recorder('all');
    assert.equal(decisions.probe('main', 'fs.read', { path: '/r/a' }), true);
    assert.equal(decisions.probe('main', 'fs.write', { path: '/r/a' }), false);
    assert.equal(written.length, 0);
  });

  test('a probe never swallows an invariant refusal', () => {
    const { decisions, written } = recorder('none');
    assert.throws(() => decisions.probe('main', 'secrets.get', { name: 'K' }), isDenied('invariant'));
    assert.equal(written.length, 1);
  });

  test('check() is judged without the main-only invariant', () => {
    const { decisions } = recorder('none', policyOf('allow', undefined));
    assert.equal(decisions.check('main', 'secrets.get', { name: 'K' }).decision, 'allow');
    assert.throws(() => decisions.gate('main', 'secrets.get', { name: 'K' }), isDenied('invariant'));
  });

  test('quick-search fields are copied only for scalars, text sanitised; payload_json is untouched', () => {
    const context = { host: 'x.example', path: '/a?token=abc#frag', remote: 'https://user:pw@git.example/r.git?x=1', tool: { nested: true }, body_size: 12, overwrite: false, method: 'GET', other: 'kept only in payload', name: 'é'.repeat(600) };
    const fields = auditContext(context);
    assert.equal(fields.payload_json, JSON.stringify(context));
    assert.equal(fields.path, '/a');
    assert.equal(fields.remote, 'https://git.example/r.git');
    assert.equal(fields.tool, undefined);
    assert.equal(fields.other, undefined);
    assert.deepEqual([fields.host, fields.body_size, fields.overwrite, fields.method], ['x.example', 12, false, 'GET']);
    assert.equal(Array.from(fields.name as string).length, 512);
  });

  test('allow records carry the normalised context', () => {
    const { decisions, written } = recorder('all');
    decisions.gate('main', 'http.get', { host: 'API.Example.com:443', path: '/v1?key=secret' });
    assert.equal(written[0].context.host, 'api.example.com');
    assert.equal(written[0].context.path, '/v1');
    assert.match(written[0].context.payload_json, /key=secret/);
  });
});
