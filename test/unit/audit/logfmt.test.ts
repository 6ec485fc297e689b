// Unit tests for the logfmt encoder and parser: quoting, keys,
// value types, flattening order, limits, and a parse(encode(x)) round-trip property.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { compareByteOrder, encodeLogfmt, encodeValue, LogfmtError, MAX_RECORD_BYTES, parseLogfmt } from '../../../src/audit';

const ts = new Date('2026-03-02T09:15:04.112Z');
const logHeader = { ts, level: 'info', stream: 'log' as const, target: 'svc_server::serve', msg: 'hello' };
const auditHeader = { ts, level: 'info', stream: 'audit' as const, target: 'svc_server::audit', msg: 'admin' };

/** The part of an encoded log line after the fixed header. */
function fieldsOf(fields: Record<string, unknown>, sorted = false): string {
  const line = encodeLogfmt(sorted ? auditHeader : logHeader, fields, { sorted });
  const header = encodeLogfmt(sorted ? auditHeader : logHeader, {}, { sorted });
  return line.slice(header.length + 1);
}

function assertLogfmtError(fn: () => unknown, code: string): void {
  assert.throws(fn, (error: unknown) => error instanceof LogfmtError && error.code === code);
}

describe('value quoting', () => {
  test('plain text stays bare', () => {
    assert.equal(encodeValue('svc_server::serve'), 'svc_server::serve');
    assert.equal(encodeValue('127.0.0.1:8128'), '127.0.0.1:8128');
  });

  test('an empty value is written as two quotes', () => {
    assert.equal(encodeValue(''), '""');
    assert.match(encodeLogfmt({ ...logHeader, msg: '' }, {}, { sorted: false }), / msg=""$/);
  });

  test('spaces, = and " force quoting, and " is escaped inside', () => {
    assert.equal(encodeValue('a b'), '"a b"');
    assert.equal(encodeValue('a=b'), '"a=b"');
    assert.equal(encodeValue('say "hi"'), '"say \\"hi\\""');
  });

  test('a backslash alone does not force quoting but is escaped inside quotes', () => {
    assert.equal(encodeValue('a\\b'), 'a\\b');
    assert.equal(encodeValue('a\\ b'), '"a\\\\ b"');
  });

  test('newline, return and tab use short escapes; other controls use lower-case \\u escapes', () => {
    assert.equal(encodeValue('a\nb\rc\td'), '"a\\nb\\rc\\td"');
    assert.equal(encodeValue('x\u0000y'), '"x\\u0000y"');
    assert.equal(encodeValue('x\u001by'), '"x\\u001by"');
    assert.equal(encodeValue('x\u007fy'), '"x\\u007fy"');
    assert.equal(encodeValue('x\u009fy'), '"x\\u009fy"');
  });

  test('unicode whitespace forces quoting but is written as is', () => {
    assert.equal(encodeValue('a\u00a0b'), '"a\u00a0b"');
    assert.equal(encodeValue('a\u2028b'), '"a\u2028b"');
  });

  test('other unicode is written as is without quotes', () => {
    assert.equal(encodeValue('héllo→世界🙂'), 'héllo→世界🙂');
  });
});

describe('header and keys', () => {
  test('the header comes first in the order ts, level, stream, target, msg', () => {
    const line = encodeLogfmt({ ...logHeader, msg: 'svc-server listening' }, { addr: '127.0.0.1:8128', protocol: 'http' }, { sorted: false });
    assert.equal(
      line,
      'ts=2026-03-02T09:15:04.112Z level=info stream=log target=svc_server::serve msg="svc-server listening" addr=127.0.0.1:8128 protocol=http',
    );
  });

  test('an invalid timestamp or level is refused', () => {
    assertLogfmtError(() => encodeLogfmt({ ...logHeader, ts: new Date(NaN) }, {}, { sorted: false }), 'invalid_timestamp');
    assertLogfmtError(() => encodeLogfmt({ ...logHeader, ts: new Date(Date.UTC(10000, 0, 1)) }, {}, { sorted: false }), 'invalid_timestamp');
    assertLogfmtError(() => encodeLogfmt({ ...logHeader, level: 'fatal' }, {}, { sorted: false }), 'invalid_header');
  });

  test('fields named like header keys are written as fields.<name>', () => {
    assert.equal(fieldsOf({ ts: 1, level: 'x', stream: 's', target: 't', msg: 'm' }), 'fields.ts=1 fields.level=x fields.stream=s fields.target=t fields.msg=m');
  });

  test('renamed header fields sort by their new name in audit records', () => {
    assert.equal(fieldsOf({ msg: 'm', zeta: 1, alpha: 2 }, true), 'alpha=2 fields.msg=m zeta=1');
  });

  test('nested keys named like header keys are not renamed', () => {
    assert.equal(fieldsOf({ context: { ts: 1 } }), 'context.ts=1');
  });

  for (const bad of ['', 'a b', 'a=b', 'a"b', 'a\\b', 'a\nb', 'a\u0085b']) {
    test(`a record with the key ${JSON.stringify(bad)} is refused whole`, () => {
      assertLogfmtError(() => fieldsOf({ ok: 1, [bad]: 2 }), 'invalid_key');
      assertLogfmtError(() => fieldsOf({ ok: { [bad]: 2 } }), 'invalid_key');
    });
  }
});

describe('value types', () => {
  test('numbers, booleans and null are written as their JSON text', () => {
    assert.equal(fieldsOf({ count: 1000, ratio: 0.5, neg: -3, allow_unauthenticated: false, on: true, old_hash: null }), 'count=1000 ratio=0.5 neg=-3 allow_unauthenticated=false on=true old_hash=null');
  });

  test('non-finite numbers have no JSON text and read null', () => {
    assert.equal(fieldsOf({ a: NaN, b: Infinity }), 'a=null b=null');
  });

  test('undefined fields are omitted', () => {
    assert.equal(fieldsOf({ a: undefined, b: 1 }), 'b=1');
  });

  test('strings that look like numbers stay bare text', () => {
    assert.equal(fieldsOf({ status: '200' }), 'status=200');
  });

  test('dates are ISO text and errors their message', () => {
    assert.equal(fieldsOf({ at: ts, error: new Error('disk full') }), 'at=2026-03-02T09:15:04.112Z error="disk full"');
  });
});

describe('flattening', () => {
  test('nested objects become dotted keys and arrays positional keys', () => {
    assert.equal(
      fieldsOf({ context: { path: '/a', length: 5 }, vars: [{ name: 'A', value: '1' }, { name: 'B', value: '2' }] }),
      'context.path=/a context.length=5 vars.0.name=A vars.0.value=1 vars.1.name=B vars.1.value=2',
    );
  });

  test('empty objects and arrays produce no key at all', () => {
    assert.equal(fieldsOf({ a: {}, b: [], c: { d: {}, e: [] }, f: 1 }), 'f=1');
  });

  test('audit records sort keys by byte order at every level; arrays stay in index order', () => {
    const vars = Array.from({ length: 11 }, (_, i) => ({ value: String(i), name: `v${i}` }));
    const keys = parseLogfmt(fieldsOf({ vars, b: { z: 1, a: 2 }, a: 0 }, true)).map(([k]) => k);
    assert.deepEqual(keys.slice(0, 3), ['a', 'b.a', 'b.z']);
    assert.deepEqual(keys.slice(3, 7), ['vars.0.name', 'vars.0.value', 'vars.1.name', 'vars.1.value']);
    assert.ok(keys.indexOf('vars.2.name') < keys.indexOf('vars.10.name'), 'vars.2 precedes vars.10');
  });

  test('byte order puts upper case before lower case and astral characters last', () => {
    assert.equal(fieldsOf({ b: 1, a: 2, B: 3, _: 4 }, true), 'B=3 _=4 a=2 b=1');
    assert.deepEqual(['\u{1f600}', '\uffff', 'a'].sort(compareByteOrder), ['a', '\uffff', '\u{1f600}']);
  });

  test('log records keep the call-site order', () => {
    assert.equal(fieldsOf({ z: 1, a: 2, m: { y: 1, b: 2 } }), 'z=1 a=2 m.y=1 m.b=2');
  });

  test('63 levels of nesting are accepted and 64 are refused', () => {
    const nest = (levels: number): Record<string, unknown> => {
      let value: unknown = 'leaf';
      for (let i = 1; i < levels; i++) value = { k: value };
      return { k: value };
    };
    assert.match(fieldsOf(nest(63)), /=leaf$/);
    assertLogfmtError(() => fieldsOf(nest(64)), 'too_deep');
  });

  test('4,096 values are accepted and 4,097 are refused', () => {
    const values = (n: number) => ({ list: Array.from({ length: n - 1 }, () => 1) });
    assert.doesNotThrow(() => fieldsOf(values(4096)));
    assertLogfmtError(() => fieldsOf(values(4097)), 'too_many_nodes');
  });

  test('a circular structure is refused instead of looping', () => {
    const loop: Record<string, unknown> = {};
    loop.self = loop;
    assert.throws(() => fieldsOf({ loop }), LogfmtError);
  });
});

describe('size limit', () => {
  test('a record of exactly 1 MiB is accepted and one byte more is refused', () => {
    const empty = encodeLogfmt(logHeader, { x: '' }, { sorted: false });
    const room = MAX_RECORD_BYTES - (Buffer.byteLength(empty) - 2); // minus the `""` of the empty value
    assert.equal(Buffer.byteLength(encodeLogfmt(logHeader, { x: 'a'.repeat(room) }, { sorted: false })), MAX_RECORD_BYTES);
    assertLogfmtError(() => encodeLogfmt(logHeader, { x: 'a'.repeat(room + 1) }, { sorted: false }), 'too_large');
  });

  test('the limit counts UTF-8 bytes, not characters', () => {
    assertLogfmtError(() => encodeLogfmt(logHeader, { x: 'é'.repeat(MAX_RECORD_BYTES / 2) }, { sorted: false }), 'too_large');
  });
});

describe('parsing', () => {
  test('parses the reference example with escaped JSON inside a quoted value', () => {
    const line =
      'ts=2026-03-02T09:15:04.112Z level=info stream=audit target=svc_server::audit msg=decision context.payload_json="{\\"path\\":\\"/secrets.txt\\",\\"length\\":5}" reason="denied by policy" rule=default\n';
    const record = Object.fromEntries(parseLogfmt(line));
    assert.equal(record['context.payload_json'], '{"path":"/secrets.txt","length":5}');
    assert.equal(record.reason, 'denied by policy');
    assert.equal(record.rule, 'default');
  });

  test('parse undoes encode for any field text (property)', () => {
    const key = fc.stringMatching(/^[A-Za-z][A-Za-z0-9_.:\/-]{0,11}$/).filter((k) => !['ts', 'level', 'stream', 'target', 'msg'].includes(k));
    const value = fc.oneof(fc.string({ unit: 'grapheme' }), fc.string({ unit: 'binary' }).map((s) => s.replace(/[\ud800-\udfff]/g, '')), fc.constantFrom('', ' ', '"', '\\', '=', '\\u0041', 'a\\'));
    fc.assert(
      fc.property(fc.uniqueArray(fc.tuple(key, value), { selector: ([k]) => k, maxLength: 12 }), fc.string({ unit: 'grapheme' }), (pairs, msg) => {
        const fields = Object.fromEntries(pairs);
        const parsed = parseLogfmt(encodeLogfmt({ ...logHeader, msg }, fields, { sorted: false }));
        assert.deepEqual(parsed.slice(5), pairs);
        assert.equal(parsed[4][1], msg);
      }),
      { numRuns: 500 },
    );
  });
});
