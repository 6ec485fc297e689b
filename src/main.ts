// Entry point of `svc-server`: parse the command line and environment, then serve, probe
// (--health-check), or print help/version. Startup failures print one line on stderr:
// exit 1 for invalid settings, 2 for a malformed command line.
import os from 'node:os';
import { ConfigError, parseCommand } from './config';
import packageJson from '../package.json';

async function main(): Promise<string | null> {
  let command;
  try {
    command = parseCommand({
      argv: process.argv.slice(2),
      env: process.env,
      cwd: process.cwd(),
      homeDir: safeHomeDir(),
      tmpDir: os.tmpdir(),
      version: packageJson.version,
    });
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`error: ${error.message}\n`);
      if (error.code === 'usage') process.stderr.write('run `svc-server --help` for usage\n');
      process.exit(error.code === 'usage' ? 2 : 1);
    }
    throw error;
  }
  switch (command.kind) {
    case 'help':
    case 'version':
      process.stdout.write(`${command.text}\n`);
      return null;
    case 'health-check': {
      const { runHealthCheck } = await import('./serve/health-check');
      const result = await runHealthCheck(command.target);
      if (!result.ok) process.stderr.write(`health check failed: ${result.reason}\n`);
      process.exit(result.ok ? 0 : 1);
    }
    case 'serve': {
      const { boot } = await import('./serve');
      await boot({ settings: command.settings, version: packageJson.version, warnings: command.warnings, exit: (code) => process.exit(code) });
      return command.settings.paths.codeCacheDir;
    }
  }
}

function safeHomeDir(): string | null {
  try {
    return os.homedir() || null;
  } catch {
    return null;
  }
}

/**
 * Resolves once the server listens, to its code cache directory (the launcher, src/launch,
 * keeps this bundle's code cache there); null when the command does not serve.
 */
export const served: Promise<string | null> = main().catch((error: unknown) => {
  process.stderr.write(`error: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
