// The runners' memory bound (`runner_memory_recycle`): its default, 0 for never, and its refusals.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { refused, settingsOf } from './support';

describe('runner memory recycle', () => {
  test('512 MB by default; whole MB from every source, the flag winning; 0 turns it off', () => {
    assert.equal(settingsOf().runnerMemoryRecycleMb, 512);
    assert.equal(settingsOf({ config: { runner_memory_recycle: 300 } }).runnerMemoryRecycleMb, 300);
    assert.equal(settingsOf({ env: { SVC_RUNNER_MEMORY_RECYCLE: '0' } }).runnerMemoryRecycleMb, 0);
    assert.equal(settingsOf({ argv: ['--runner-memory-recycle', '2048'], env: { SVC_RUNNER_MEMORY_RECYCLE: '1' } }).runnerMemoryRecycleMb, 2048);
    refused({ argv: ['--runner-memory-recycle', '-1'] }, /runner-memory-recycle|runner memory recycle/);
    refused({ config: { runner_memory_recycle: 2_000_000 } }, /runner memory recycle must be at most 1048576 MB, got 2000000/);
    refused({ env: { SVC_RUNNER_MEMORY_RECYCLE: 'lots' } }, /SVC_RUNNER_MEMORY_RECYCLE/);
  });
});
