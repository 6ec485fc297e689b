// The svc:session state budgets: per token (max_session_state_memory_per_token) and
// server-wide (max_session_state_memory) with a fair share per token past a full server.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SessionStates } from '../../../src/stdlib/session/state';

const MB = 1024 * 1024;
const value = (chars: number) => JSON.stringify('x'.repeat(chars));

test('a token past its own budget is refused naming max_session_state_memory_per_token and its use; another token is not', () => {
  const states = new SessionStates(4, 1);
  const a = states.of('s-a', 'a');
  assert.equal(a.set('k1', value(200_000)), null);
  assert.equal(a.set('k2', value(200_000)), null);
  const refusal = a.set('k3', value(200_000));
  assert.equal(refusal?.kind, 'token_budget');
  assert.match(refusal?.message ?? '', /max_session_state_memory_per_token \(1048576 bytes across its sessions\); it holds 800\d{3} bytes; nothing was stored/);
  assert.equal(a.has('k3'), false);
  // Another session of the same token shares its budget.
  assert.equal(states.of('s-a2', 'a').set('k', value(200_000))?.kind, 'token_budget');
  assert.equal(states.of('s-b', 'b').set('k', value(200_000)), null);
  assert.equal(states.perToken().get('a')! < MB, true);
});

test('a full server still takes a token below its fair share; the state a session held is freed when it goes', () => {
  const states = new SessionStates(1);
  const a = states.of('s-a', 'a');
  for (let i = 0; i < 5; i++) assert.equal(a.set(`k${i}`, value(100_000)), null);
  assert.equal(a.set('k5', value(100_000))?.kind, 'server_budget');
  const b = states.of('s-b', 'b');
  assert.equal(b.set('k0', value(100_000)), null, 'b holds nothing: below its share of 512 KiB');
  assert.equal(b.set('k1', value(100_000)), null);
  assert.equal(b.set('k2', value(100_000))?.kind, 'server_budget', 'b at its share');
  states.drop('s-a');
  assert.equal(states.perToken().has('a'), false);
  assert.equal(b.set('k2', value(100_000)), null);
});
