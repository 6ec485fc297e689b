// telemetry_endpoint: file key, flag and variable with the usual precedence; https only
// (http to loopback for tests), no credentials in the URL; in --help.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { refused, run, settingsOf } from './support';

describe('telemetry_endpoint', () => {
  test('unset by default; flag over variable over file', () => {
    assert.equal(settingsOf().telemetryEndpoint, null);
    assert.equal(settingsOf({ config: { telemetry_endpoint: 'https://file.test/r' } }).telemetryEndpoint, 'https://file.test/r');
    assert.equal(settingsOf({ config: { telemetry_endpoint: 'https://file.test/r' }, env: { SVC_TELEMETRY_ENDPOINT: 'https://env.test/r' } }).telemetryEndpoint, 'https://env.test/r');
    const all = settingsOf({ config: { telemetry_endpoint: 'https://file.test/r' }, env: { SVC_TELEMETRY_ENDPOINT: 'https://env.test/r' }, argv: ['--telemetry-endpoint', 'https://flag.test/r'] });
    assert.equal(all.telemetryEndpoint, 'https://flag.test/r');
  });

  test('plain http only to loopback; credentials and other schemes refused, naming the source', () => {
    assert.equal(settingsOf({ env: { SVC_TELEMETRY_ENDPOINT: 'http://127.0.0.1:4318/v1/logs' } }).telemetryEndpoint, 'http://127.0.0.1:4318/v1/logs');
    refused({ env: { SVC_TELEMETRY_ENDPOINT: 'http://collector.test/r' } }, [/\$SVC_TELEMETRY_ENDPOINT/, /https:\/\//]);
    refused({ argv: ['--telemetry-endpoint', 'ftp://x.test/'] }, [/--telemetry-endpoint/]);
    refused({ config: { telemetry_endpoint: 'https://user:pw@x.test/' } }, [/config `telemetry_endpoint`/, /user name or password/]);
    refused({ config: { telemetry_endpoint: 5 } }, [/expected text/]);
    refused({ env: { SVC_TELEMETRY_ENDPOINT: 'not a url' } }, [/expected an https:\/\/ URL/]);
  });

  test('listed in --help', () => {
    const help = run({ argv: ['--help'] });
    assert.ok(help.kind === 'help' && /--telemetry-endpoint <url>.*\$SVC_TELEMETRY_ENDPOINT/.test(help.text));
  });
});
