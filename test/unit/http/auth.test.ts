// Unit tests for token parsing and identification, and the path-role table.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { identifyToken, presentedToken } from '../../../src/http/auth';
import { roleForPath } from '../../../src/http/route-table';

const digest = (token: string) => createHash('sha256').update(token).digest();
const tokens = [
  { name: 'SVC_SERVER_TOKEN', role: 'admin' as const, digest: digest('a'.repeat(40)) },
  { name: 'harness', role: 'user' as const, digest: digest('b'.repeat(40)) },
];

test('a single Bearer header is read in any case of the scheme', () => {
  assert.equal(presentedToken(['Authorization', 'Bearer abc']), 'abc');
  assert.equal(presentedToken(['authorization', 'bearer abc']), 'abc');
  assert.equal(presentedToken(['AUTHORIZATION', 'BEARER abc']), 'abc');
});

test('two Authorization headers, another scheme or an empty token count as no token', () => {
  assert.equal(presentedToken(['Authorization', 'Bearer a', 'authorization', 'Bearer a']), null);
  assert.equal(presentedToken(['Authorization', 'Basic abc']), null);
  assert.equal(presentedToken(['Authorization', 'Bearer ']), null);
  assert.equal(presentedToken([]), null);
});

test('a token with a trailing space is an unknown token, not a missing one', () => {
  const token = presentedToken(['Authorization', `Bearer ${'a'.repeat(40)} `]);
  assert.equal(identifyToken(tokens, token).kind, 'unknown');
});

test('known tokens map to their name and role', () => {
  assert.deepEqual(identifyToken(tokens, 'b'.repeat(40)), { kind: 'known', principal: { name: 'harness', role: 'user' } });
  assert.deepEqual(identifyToken(tokens, 'a'.repeat(40)), { kind: 'known', principal: { name: 'SVC_SERVER_TOKEN', role: 'admin' } });
  assert.equal(identifyToken(tokens, null).kind, 'missing');
});

test('the path table gives roles and null for unknown paths', () => {
  assert.equal(roleForPath('/healthz'), 'none');
  assert.equal(roleForPath('/v1/status'), 'admin');
  assert.equal(roleForPath('/v1/blueprints/x/prompt'), 'user');
  assert.equal(roleForPath('/v1/blueprints/x'), 'admin');
  assert.equal(roleForPath('/v1/secrets/a/b/c'), 'admin');
  assert.equal(roleForPath('/v1/execute'), 'user');
  assert.equal(roleForPath('/mcp/support'), 'user');
  assert.equal(roleForPath('/v1/nothing'), null);
  assert.equal(roleForPath('/v1/status/extra'), null);
});
