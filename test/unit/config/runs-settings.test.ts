// The run-record settings: `run_retention` (a duration) and `max_run_store_size` (a size),
// from the file, a flag or a variable, with their defaults and refusals; and the runners'
// heartbeat timeout (`runner_heartbeat_timeout`).
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { refused, settingsOf } from './support';

describe('run record settings', () => {
  test('defaults: 24 hours and 256 MiB', () => {
    assert.deepEqual(settingsOf().runs, { retentionMs: 24 * 3600 * 1000, maxBytes: 256 * 1024 * 1024 });
  });

  test('run_retention takes a whole number and one unit (s, m, h, d) from every source; the flag wins', () => {
    assert.equal(settingsOf({ config: { run_retention: '7d' } }).runs.retentionMs, 7 * 86400 * 1000);
    assert.equal(settingsOf({ env: { SVC_RUN_RETENTION: '90m' } }).runs.retentionMs, 90 * 60 * 1000);
    assert.equal(settingsOf({ argv: ['--run-retention', '30s'], env: { SVC_RUN_RETENTION: '2h' } }).runs.retentionMs, 30_000);
    for (const text of ['24', '1.5h', '1w', 'h', '-1h', '0s', '1 h']) refused({ env: { SVC_RUN_RETENTION: text } }, /\$SVC_RUN_RETENTION: .*duration/);
    refused({ config: { run_retention: true } }, /config `run_retention`: expected a duration/);
  });

  test('max_run_store_size takes a size with binary units from every source', () => {
    assert.equal(settingsOf({ config: { max_run_store_size: '1GB' } }).runs.maxBytes, 1024 ** 3);
    assert.equal(settingsOf({ config: { max_run_store_size: 4096 } }).runs.maxBytes, 4096);
    assert.equal(settingsOf({ env: { SVC_MAX_RUN_STORE_SIZE: '64MiB' } }).runs.maxBytes, 64 * 1024 ** 2);
    assert.equal(settingsOf({ argv: ['--max-run-store-size', '8KB'] }).runs.maxBytes, 8192);
    for (const text of ['unlimited', '0', '12 parsecs', '-5MB']) refused({ env: { SVC_MAX_RUN_STORE_SIZE: text } }, /\$SVC_MAX_RUN_STORE_SIZE: expected a size/);
  });
});

describe('runner heartbeat timeout', () => {
  test('unset it is left to the runner pool (3 s); 1-300 whole seconds from every source', () => {
    assert.equal(settingsOf().runnerHeartbeatTimeoutSeconds, null);
    assert.equal(settingsOf({ config: { runner_heartbeat_timeout: 1 } }).runnerHeartbeatTimeoutSeconds, 1);
    assert.equal(settingsOf({ env: { SVC_RUNNER_HEARTBEAT_TIMEOUT: '300' } }).runnerHeartbeatTimeoutSeconds, 300);
    assert.equal(settingsOf({ argv: ['--runner-heartbeat-timeout', '5'], env: { SVC_RUNNER_HEARTBEAT_TIMEOUT: '2' } }).runnerHeartbeatTimeoutSeconds, 5);
    refused({ argv: ['--runner-heartbeat-timeout', '0'] }, /runner heartbeat timeout must be at least 1, got 0/);
    refused({ config: { runner_heartbeat_timeout: 301 } }, /runner heartbeat timeout must be at most 300, got 301/);
    refused({ env: { SVC_RUNNER_HEARTBEAT_TIMEOUT: '1.5' } }, /SVC_RUNNER_HEARTBEAT_TIMEOUT/);
  });
});
