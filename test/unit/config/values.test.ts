// Value types of the settings (counts, megabytes/kibibytes/seconds, ports, IP
// addresses, booleans, lists), ranges of every limit, and the same rules inside the file.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { refused, settingsOf } from './support';

describe('counts', () => {
  const accepted: Array<[string, number]> = [
    ['1', 1],
    ['1000', 1000],
    ['1_000_000', 1_000_000],
    ['5K', 5_000],
    ['5k', 5_000],
    ['20M', 20_000_000],
    ['3b', 3_000_000_000],
    ['2T', 2_000_000_000_000],
    ['1_000K', 1_000_000],
    ['9007199254740991', 9007199254740991],
  ];
  for (const [text, value] of accepted) {
    test(`count \`${text}\` is ${value}`, () => {
      assert.equal(settingsOf({ env: { SVC_MAX_EXECUTION_FUEL: text } }).limits.max_execution_fuel, value);
    });
  }
  const refusedCounts = ['1.5M', '1e10', '1 M', '1MB', '-1', '+1', 'K', '_1', '1_', '1__0', '1_K', '١٢', '9007199254740992', '9008T', 'abc', '0x10'];
  for (const text of refusedCounts) {
    test(`count \`${text}\` is refused, naming the variable and the form`, () => {
      refused({ env: { SVC_MAX_LLM_TOKENS: text } }, /\$SVC_MAX_LLM_TOKENS: a count is a whole number with an optional K, M, B or T suffix, got `/);
    });
  }
  test('a flag count is refused naming the flag', () => {
    refused({ argv: ['--max-execution-fuel', '1.5M'] }, /--max-execution-fuel: a count is a whole number/);
  });
  test('a count in the file is judged as written: 1e3 is refused though YAML reads a number', () => {
    refused({ config: 'max_execution_fuel: 1e3\n' }, /config `max_execution_fuel`: a count is a whole number.*got `1e3`/);
  });
  test('a count in the file may be quoted or carry a suffix', () => {
    const s = settingsOf({ config: 'max_llm_tokens: "30M"\nmax_embedding_tokens: 1_000\nmax_execution_llm_tokens: 7\n' });
    assert.deepEqual([s.limits.max_llm_tokens, s.limits.max_embedding_tokens, s.limits.max_execution_llm_tokens], [30_000_000, 1000, 7]);
  });
});

describe('megabytes, kibibytes, seconds and whole numbers', () => {
  const cases: Array<[string, string, string]> = [
    ['SVC_MAX_EXECUTION_MEMORY', '64MB', 'megabytes'],
    ['SVC_MAX_EXECUTION_STACK', '1K', 'kibibytes'],
    ['SVC_SHUTDOWN_GRACE', '8s', 'seconds'],
    ['SVC_MAX_EXECUTION_TIME', '1.5', 'seconds'],
    ['SVC_MAX_SESSION_STATE_MEMORY', '-5', 'megabytes'],
    ['SVC_MAX_LLM_CONCURRENCY', '4K', 'units'],
    // A bounded whole number names its range.
    ['SVC_RUNNER_POOL_SIZE', 'two', 'units from 1 to 64'],
  ];
  for (const [variable, text, unit] of cases) {
    test(`${variable}=${text} is refused as not plain digits`, () => {
      refused({ env: { [variable]: text } }, new RegExp(`\\$${variable}: expected a whole number of ${unit}, got \`${text.replace('.', '\\.')}\``));
    });
  }
  test('plain digits are accepted for each unit', () => {
    const s = settingsOf({ env: { SVC_MAX_EXECUTION_MEMORY: '64', SVC_MAX_EXECUTION_STACK: '1024', SVC_SHUTDOWN_GRACE: '0', SVC_MAX_EXECUTION_TIME: '30', SVC_MAX_EMBEDDING_CONCURRENCY: '8' } });
    assert.deepEqual(
      [s.limits.max_execution_memory, s.limits.max_execution_stack, s.shutdownGraceSeconds, s.limits.max_execution_time, s.limits.max_embedding_concurrency],
      [64, 1024, 0, 30, 8],
    );
  });
  test('in the file these must be YAML integers, not quoted text', () => {
    refused({ config: 'max_execution_memory: "64"\n' }, /config `max_execution_memory`: expected a whole number/);
    refused({ config: 'shutdown_grace: 2.5\n' }, /config `shutdown_grace`: expected a whole number of seconds, got `2\.5`/);
    assert.equal(settingsOf({ config: 'max_execution_memory: 64\n' }).limits.max_execution_memory, 64);
  });
});

describe('ranges', () => {
  test('every limit has its documented default', () => {
    assert.deepEqual(settingsOf().limits, {
      max_execution_memory: 50,
      max_execution_time: 0,
      max_execution_cpu: 600,
      max_execution_fuel: 1_000_000_000_000,
      max_execution_stack: 512,
      max_ephemeral_vfs_size: 64,
      max_session_vfs_size: 10_240,
      max_token_disk: 51_200,
      max_session_state_memory: 1024,
      max_session_state_memory_per_token: 1024,
      max_last_run_memory: 64,
      max_sessions_per_token: 64,
      max_idempotency_records: 1_000,
      max_idempotency_session_size: 64,
      max_idempotency_size: 1_024,
      max_idempotency_token_size: 1_024,
      typecheck_large_program: 64,
      compile_cache_size: 16,
      database_cache_size: 4,
      typecheck_budget: 10,
      typecheck_warm_after: 0,
      typecheck_thread_memory: 512,
      compile_thread_memory: 512,
      compile_thread_recycle: 20_000,
      network_thread_memory: 256,
      max_llm_tokens: 20_000_000,
      max_llm_tokens_per_token: 20_000_000,
      max_run_journal_size: 4,
      max_execution_llm_tokens: 1_000_000,
      max_llm_concurrency: 4,
      max_embedding_tokens: 50_000_000,
      max_embedding_tokens_per_token: 50_000_000,
      max_execution_embedding_tokens: 2_000_000,
      max_execution_embedding_requests: 1_000,
      max_embedding_concurrency: 4,
      max_host_calls_in_flight: 64,
      max_server_host_calls_in_flight: 4096,
      max_host_calls_in_flight_per_token: 4096,
    });
    const s = settingsOf();
    assert.deepEqual([s.shutdownGraceSeconds, s.runnerPoolSize], [5, 2]);
    assert.deepEqual(s.connections, { total: 4096, perAddress: 1024, unauthenticated: 256, headerTimeoutSeconds: 60 });
    assert.deepEqual([s.admission.runsInFlightPerToken, s.admission.queuedRunsPerToken], [s.admission.runsInFlight, s.admission.queuedRuns]);
  });
  test('a per-token budget left unset follows its server-wide one', () => {
    const s = settingsOf({ argv: ['--max-session-state-memory', '8', '--max-llm-tokens', '500', '--max-queued-runs', '7'] });
    assert.deepEqual([s.limits.max_session_state_memory_per_token, s.limits.max_llm_tokens_per_token, s.admission.queuedRunsPerToken], [8, 500, 7]);
    const set = settingsOf({ argv: ['--max-session-state-memory', '8', '--max-session-state-memory-per-token', '2'] });
    assert.equal(set.limits.max_session_state_memory_per_token, 2);
  });
  test('max execution memory must be at least 1 MB', () => {
    refused({ argv: ['--max-execution-memory', '0'] }, /max execution memory must be at least 1 MB, got 0/);
  });
  test('max execution stack must be 1 to 16384 KiB', () => {
    refused({ argv: ['--max-execution-stack', '20000'] }, /max execution stack must be at most 16384 KiB, got 20000/);
    refused({ argv: ['--max-execution-stack', '0'] }, /max execution stack must be at least 1 KiB, got 0/);
    assert.equal(settingsOf({ argv: ['--max-execution-stack', '16384'] }).limits.max_execution_stack, 16384);
  });
  for (const key of ['max_execution_fuel', 'max_ephemeral_vfs_size', 'max_session_state_memory', 'max_last_run_memory', 'max_sessions_per_token', 'max_idempotency_records', 'max_idempotency_session_size', 'max_idempotency_size', 'typecheck_large_program', 'typecheck_budget', 'max_llm_tokens', 'max_execution_llm_tokens', 'max_llm_concurrency', 'max_embedding_tokens', 'max_execution_embedding_tokens', 'max_execution_embedding_requests', 'max_embedding_concurrency']) {
    test(`${key} must be at least 1`, () => {
      refused({ config: { [key]: 0 } }, new RegExp(`${key.replaceAll('_', ' ')} must be at least 1`));
    });
  }
  test('max_execution_time 0 and shutdown_grace 0 are allowed', () => {
    const s = settingsOf({ argv: ['--max-execution-time', '0', '--shutdown-grace', '0'] });
    assert.deepEqual([s.limits.max_execution_time, s.shutdownGraceSeconds], [0, 0]);
  });
  test('session_reap_interval (our extension) is whole seconds, at least 1, default 30', () => {
    assert.equal(settingsOf().sessionReapIntervalSeconds, 30);
    assert.equal(settingsOf({ argv: ['--session-reap-interval', '1'] }).sessionReapIntervalSeconds, 1);
    assert.equal(settingsOf({ env: { SVC_SESSION_REAP_INTERVAL: '300' } }).sessionReapIntervalSeconds, 300);
    assert.equal(settingsOf({ config: { session_reap_interval: 5 } }).sessionReapIntervalSeconds, 5);
    refused({ argv: ['--session-reap-interval', '0'] }, /session reap interval must be at least 1/);
  });
  test('runner_pool_size (our extension) is a whole number from 1 to 64', () => {
    assert.equal(settingsOf({ argv: ['--runner-pool-size', '8'] }).runnerPoolSize, 8);
    assert.equal(settingsOf({ env: { SVC_RUNNER_POOL_SIZE: '64' } }).runnerPoolSize, 64);
    assert.equal(settingsOf({ config: { runner_pool_size: 1 } }).runnerPoolSize, 1);
    refused({ env: { SVC_RUNNER_POOL_SIZE: '0' } }, /runner pool size must be between 1 and 64, got 0/);
    refused({ argv: ['--runner-pool-size', '65'] }, /runner pool size must be between 1 and 64, got 65/);
  });
});

describe('ports and IP addresses', () => {
  for (const text of ['65536', '-1', '80a', '8 0', '1e3', '0x50']) {
    test(`port \`${text}\` is refused`, () => {
      refused({ argv: ['--port', text] }, /--port: expected a port number, got `/);
    });
  }
  test('ports 0 and 65535 are accepted', () => {
    assert.equal(settingsOf({ env: { SVC_PORT: '65535' } }).port, 65535);
    assert.equal(settingsOf({ env: { SVC_PORT: '0' } }).port, 0);
  });
  for (const text of ['localhost', '[::1]', '127.0.0.1:80', '256.0.0.1', 'example.com', '10.0.0.0/8']) {
    test(`bind \`${text}\` is refused: an address, not a host name`, () => {
      refused({ env: { SVC_BIND: text } }, /\$SVC_BIND: expected an IP address, got `/);
    });
  }
  test('IPv4 and IPv6 binds are accepted', () => {
    assert.equal(settingsOf({ argv: ['--bind', '0.0.0.0'] }).bind, '0.0.0.0');
    assert.equal(settingsOf({ config: { bind: '::' } }).bind, '::');
  });
});

describe('booleans and lists', () => {
  for (const text of ['1', 'true', 'TRUE', 'Yes', 'on', ' on ']) {
    test(`boolean variable \`${text}\` is true`, () => {
      assert.equal(settingsOf({ env: { SVC_ALLOW_PRIVATE: text } }).network.allowPrivate, true);
    });
  }
  for (const text of ['0', 'false', 'no', 'off', 'enabled', 'y']) {
    test(`boolean variable \`${text}\` is false, never an error`, () => {
      assert.equal(settingsOf({ env: { SVC_ALLOW_PRIVATE: text } }).network.allowPrivate, false);
    });
  }
  test('a boolean in the file must be YAML true or false', () => {
    refused({ config: 'allow_unauthenticated: yes\n' }, /config `allow_unauthenticated`: expected `true` or `false`/);
    refused({ config: { network: { allow_localhost: 'true' } } }, /config `network\.allow_localhost`: expected `true` or `false`/);
  });
  test('a boolean flag needs no value', () => {
    assert.equal(settingsOf({ argv: ['--allow-localhost'] }).network.allowLocalhost, true);
  });
  test('list variables trim items and drop empty ones', () => {
    const s = settingsOf({ env: { SVC_ALLOW_IP: ' 10.0.0.1 , ,10.0.0.2,' } });
    assert.deepEqual([...s.network.allowIp].sort(), ['10.0.0.1/32', '10.0.0.2/32']);
  });
  test('a list in the file must be a YAML list of strings', () => {
    refused({ config: { mcp_allowed_hosts: 'a.test' } }, /config `mcp_allowed_hosts`: expected a list/);
    refused({ config: { network: { allow_ip: [1] } } }, /config `network\.allow_ip\[0\]`: expected text/);
  });
});

describe('other variables', () => {
  test('SVC_DENY_WARNINGS accepts only 1', () => {
    assert.equal(settingsOf({ env: { SVC_DENY_WARNINGS: '1' } }).denyWarnings, true);
    assert.equal(settingsOf({ env: { SVC_DENY_WARNINGS: '' } }).denyWarnings, false);
    assert.equal(settingsOf().denyWarnings, false);
    for (const text of ['true', '0', 'yes']) refused({ env: { SVC_DENY_WARNINGS: text } }, /\$SVC_DENY_WARNINGS: expected `1` or unset/);
  });
  test('secret_store.key_env must be a variable name', () => {
    refused({ argv: ['--secret-store-key-env', 'MY-KEY'] }, /--secret-store-key-env: expected an environment variable name/);
  });
  test('a path setting in the file must be text', () => {
    refused({ config: 'database_path: true\n' }, /config `database_path`: expected text/);
  });
  test('a scalar setting given a mapping in the file is refused', () => {
    refused({ config: { port: { value: 1 } } }, /config `port`: expected a single value/);
  });
  test('RUST_LOG is passed through as the log filter; empty means default', () => {
    assert.equal(settingsOf({ env: { RUST_LOG: 'svc_server::http=debug,warn' } }).logging.filter, 'svc_server::http=debug,warn');
    assert.equal(settingsOf({ env: { RUST_LOG: '' } }).logging.filter, null);
  });
});

describe('disk quotas (issue 36)', () => {
  test('max_session_vfs_size and max_token_disk: flag over environment over file; 0 means no limit', () => {
    assert.deepEqual([settingsOf().limits.max_session_vfs_size, settingsOf().limits.max_token_disk], [10_240, 51_200]);
    const config = { max_session_vfs_size: 100, max_token_disk: 0 };
    const both = (s: ReturnType<typeof settingsOf>) => [s.limits.max_session_vfs_size, s.limits.max_token_disk];
    assert.deepEqual(both(settingsOf({ config })), [100, 0]);
    const env = { SVC_MAX_SESSION_VFS_SIZE: '200', SVC_MAX_TOKEN_DISK: '300' };
    assert.deepEqual(both(settingsOf({ config, env })), [200, 300]);
    const argv = ['--max-session-vfs-size', '5', '--max-token-disk', '6'];
    assert.deepEqual(both(settingsOf({ config, env, argv })), [5, 6]);
  });
});
