// Unit tests for the RUST_LOG filter: levels, targets and their
// `::` children, longest match, default info, invalid values ignored with a warning.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { InvalidFilterError, LevelFilter, type LogLevel } from '../../../src/audit';

const LEVELS: LogLevel[] = ['error', 'warn', 'info', 'debug', 'trace'];

function enabledLevels(filter: LevelFilter, target: string): LogLevel[] {
  return LEVELS.filter((level) => filter.enabled(target, level));
}

function parse(text: string | null): { filter: LevelFilter; warnings: string[] } {
  const warnings: string[] = [];
  return { filter: LevelFilter.parse(text, (line) => warnings.push(line)), warnings };
}

describe('RUST_LOG filter', () => {
  test('unset or empty means info and above', () => {
    for (const text of [null, '', '  ']) {
      const { filter, warnings } = parse(text);
      assert.deepEqual(enabledLevels(filter, 'svc_server::serve'), ['error', 'warn', 'info']);
      assert.deepEqual(warnings, []);
    }
  });

  test('a bare level sets the default for every target', () => {
    assert.deepEqual(enabledLevels(parse('debug').filter, 'svc_server::serve'), ['error', 'warn', 'info', 'debug']);
    assert.deepEqual(enabledLevels(parse('error').filter, 'anything'), ['error']);
    assert.deepEqual(enabledLevels(parse('TRACE').filter, 'x'), LEVELS);
  });

  test('off disables everything', () => {
    assert.deepEqual(enabledLevels(parse('off').filter, 'svc_server::serve'), []);
  });

  test('a target directive covers the target and its :: children but not name prefixes', () => {
    const { filter } = parse('warn,svc_server::serve=trace');
    assert.deepEqual(enabledLevels(filter, 'svc_server::serve'), LEVELS);
    assert.deepEqual(enabledLevels(filter, 'svc_server::serve::drain'), LEVELS);
    assert.deepEqual(enabledLevels(filter, 'svc_server::server'), ['error', 'warn']);
    assert.deepEqual(enabledLevels(filter, 'svc_server'), ['error', 'warn']);
  });

  test('the longest matching target wins whatever the order', () => {
    for (const text of ['svc_server=off,svc_server::auth=debug', 'svc_server::auth=debug,svc_server=off']) {
      const { filter } = parse(text);
      assert.deepEqual(enabledLevels(filter, 'svc_server::auth'), ['error', 'warn', 'info', 'debug']);
      assert.deepEqual(enabledLevels(filter, 'svc_server::serve'), []);
      assert.deepEqual(enabledLevels(filter, 'other'), ['error', 'warn', 'info']);
    }
  });

  test('a later directive for the same target replaces an earlier one', () => {
    assert.deepEqual(enabledLevels(parse('a=trace,a=error').filter, 'a'), ['error']);
  });

  test('whitespace around directives and empty directives are tolerated', () => {
    const { filter, warnings } = parse(' svc_server::auth = debug , ,error ');
    assert.deepEqual(enabledLevels(filter, 'svc_server::auth'), ['error', 'warn', 'info', 'debug']);
    assert.deepEqual(enabledLevels(filter, 'x'), ['error']);
    assert.deepEqual(warnings, []);
  });

  for (const bad of ['verbose', 'svc_server=loud', '=debug', 'a=b=debug', 'svc server=debug', 'debug,svc_server']) {
    test(`the invalid value ${JSON.stringify(bad)} is ignored with one warning and info applies`, () => {
      const { filter, warnings } = parse(bad);
      assert.deepEqual(enabledLevels(filter, 'svc_server'), ['error', 'warn', 'info']);
      assert.equal(warnings.length, 1);
      assert.match(warnings[0], /RUST_LOG/);
    });
  }

  test('parseStrict throws a typed error for an invalid value', () => {
    assert.throws(() => LevelFilter.parseStrict('nope'), (error: unknown) => error instanceof InvalidFilterError && error.code === 'invalid_log_filter');
  });
});
