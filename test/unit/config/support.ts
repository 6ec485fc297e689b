// Shared helpers of the settings tests: run parseCommand against a scratch directory with
// an optional config file, and assert refusals by code and message.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { stringify } from 'yaml';
import { ConfigError, parseCommand, type Command, type Settings } from '../../../src/config';
import { tempDir } from '../../support/temp-dirs';

export const TOKEN = 'a'.repeat(40);

export function scratch(): string {
  return tempDir('svc-config-');
}

export function writeFile(dir: string, name: string, content: string | Buffer): string {
  const file = path.join(dir, name);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, content);
  return file;
}

export interface RunOptions {
  argv?: string[];
  env?: Record<string, string | undefined>;
  /** An object is written as YAML; a string is written as is. */
  config?: Record<string, unknown> | string;
  /** Directory holding the config file and used as cwd; a fresh one by default. */
  dir?: string;
  homeDir?: string | null;
  /** Leave out the default SVC_SERVER_TOKEN. */
  noToken?: boolean;
}

export function run(options: RunOptions = {}): Command {
  const dir = options.dir ?? scratch();
  const argv = [...(options.argv ?? [])];
  if (options.config !== undefined) {
    const text = typeof options.config === 'string' ? options.config : stringify(options.config);
    argv.push('--config', writeFile(dir, 'config.yaml', text));
  }
  const env = { ...(options.noToken ? {} : { SVC_SERVER_TOKEN: TOKEN }), ...(options.env ?? {}) };
  return parseCommand({ argv, env, cwd: dir, homeDir: options.homeDir === undefined ? dir : options.homeDir, tmpDir: os.tmpdir(), version: '1.2.3' });
}

export function serve(options: RunOptions = {}): { settings: Settings; warnings: Array<{ target: string; msg: string; fields?: Record<string, unknown> }> } {
  const command = run(options);
  assert.equal(command.kind, 'serve');
  return command as Extract<Command, { kind: 'serve' }>;
}

export function settingsOf(options: RunOptions = {}): Settings {
  return serve(options).settings;
}

/** Asserts a ConfigError with this code whose message matches every pattern; returns the message. */
export function refused(options: RunOptions, patterns: RegExp | RegExp[], code: 'usage' | 'invalid' = 'invalid'): string {
  let message = '';
  assert.throws(
    () => run(options),
    (error: unknown) => {
      assert.ok(error instanceof ConfigError, `expected a ConfigError, got ${String(error)}`);
      assert.equal(error.code, code, `code of: ${error.message}`);
      for (const pattern of [patterns].flat()) assert.match(error.message, pattern);
      message = error.message;
      return true;
    },
  );
  return message;
}
