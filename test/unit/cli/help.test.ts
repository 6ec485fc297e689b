// Every command of `svc`, however deep, has a description and help ending with an example,
// and rejects a token value as an option (there is no such option to give).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Command } from 'commander';
import { buildProgram } from '../../../src/cli/program';

function walk(command: Command, trail: string[] = []): Array<{ name: string; command: Command }> {
  const name = [...trail, command.name()].join(' ');
  return [{ name, command }, ...command.commands.filter((c) => c.name() !== 'help').flatMap((c) => walk(c, [...trail, command.name()]))];
}

test('every svc command has a description and an example in its help; no option takes a token', () => {
  let out = '';
  const program = buildProgram({ io: { env: {}, cwd: process.cwd(), stdout: (t) => (out += t), stderr: () => {}, stdin: process.stdin }, version: '0.0.0', setExitCode: () => {} });
  const commands = walk(program);
  assert.ok(commands.length >= 15, `found ${commands.length} commands`);
  for (const { name, command } of commands) {
    out = '';
    command.outputHelp();
    assert.ok(command.description().length > 0, `${name} has a description`);
    assert.match(out, /Examples?:\n {2}\$ svc /, `${name} has an example`);
    for (const option of command.options) assert.ok(!/^--token\b(?!-file)/.test(option.long ?? ''), `${name} ${option.long} takes a token value`);
  }
});
