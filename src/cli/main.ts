// Entry point of `svc` (bin/svc): hands the real process to runCli and exits with its
// status. The only file of the CLI that touches `process`.
import packageJson from '../../package.json';
import { runCli } from './program';

runCli(process.argv.slice(2), {
  io: {
    env: process.env,
    cwd: process.cwd(),
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    stdin: process.stdin,
  },
  version: packageJson.version,
}).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`error: internal failure in svc: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exitCode = 1;
  },
);
