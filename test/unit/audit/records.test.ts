// Unit tests for the audit redaction helpers: variable lists and
// quick-search context text sanitising.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { auditVariables, sanitizeContextText } from '../../../src/audit';

describe('auditVariables', () => {
  test('variables are sorted by name in byte order', () => {
    assert.deepEqual(auditVariables({ b: '2', a: '1', B: '3' }), [
      { name: 'B', value: '3' },
      { name: 'a', value: '1' },
      { name: 'b', value: '2' },
    ]);
  });

  test('values of secret-looking names are redacted whatever the case', () => {
    const names = ['MY_SECRET', 'GithubToken', 'db_password', 'Credentials', 'AUTHORIZATION_HEADER', 'openai_API_KEY'];
    const entries = auditVariables(Object.fromEntries(names.map((n) => [n, 'hunter2'])));
    assert.equal(entries.length, names.length);
    for (const entry of entries) assert.equal(entry.value, '[redacted]', entry.name);
  });

  test('ordinary names keep their values', () => {
    assert.deepEqual(auditVariables({ region: 'eu', apikey: 'x' }), [
      { name: 'apikey', value: 'x' },
      { name: 'region', value: 'eu' },
    ]);
  });

  test('at most 128 variables are listed, the first by name', () => {
    const vars = Object.fromEntries(Array.from({ length: 200 }, (_, i) => [`v${String(i).padStart(3, '0')}`, String(i)]));
    const entries = auditVariables(vars);
    assert.equal(entries.length, 128);
    assert.equal(entries[0].name, 'v000');
    assert.equal(entries[127].name, 'v127');
  });
});

describe('sanitizeContextText', () => {
  test('a URL loses user, password, query and fragment', () => {
    assert.equal(sanitizeContextText('https://bob:pw@api.example.com:8443/v1/items?token=abc#frag'), 'https://api.example.com:8443/v1/items');
  });

  test('an unparseable string containing :// is redacted', () => {
    assert.equal(sanitizeContextText('see http://exa mple.com?x=1'), '[redacted]');
  });

  test('other text is cut at its first ? or #', () => {
    assert.equal(sanitizeContextText('/data/file.txt?v=2'), '/data/file.txt');
    assert.equal(sanitizeContextText('notes#section?x'), 'notes');
    assert.equal(sanitizeContextText('plain'), 'plain');
  });

  test('text is truncated to 512 code points, not UTF-16 units', () => {
    const long = '🙂'.repeat(600);
    const result = sanitizeContextText(long);
    assert.equal(Array.from(result).length, 512);
    assert.equal(result, '🙂'.repeat(512));
    assert.equal(sanitizeContextText('a'.repeat(512)), 'a'.repeat(512));
  });

  test('a URL over 8,192 characters is not parsed (redacted); long text is cut without splitting all of it', () => {
    assert.equal(sanitizeContextText(`https://bob:pw@${'u'.repeat(9000)}.example.com/`), '[redacted]');
    const huge = 'é'.repeat(6 * 1024 * 1024);
    assert.equal(sanitizeContextText(huge), 'é'.repeat(512));
    assert.equal(sanitizeContextText(`${'a'.repeat(700)}?q`), 'a'.repeat(512));
  });
});
