// `svc replay <tape.json>`: re-runs a tape's program here, in an isolate, against the tape's
// journal and nothing else (no network: every answer comes from the journal). Prints the
// result; exit 0 when result, console and fuel match the tape, 1 with the first divergence
// or difference, 2 usage, 3 the tape could not be replayed (unreadable, not replayable, or
// its Packages' code missing or not matching their recorded digests). A Package's secret
// reads (withheld from tapes) are answered from `--secrets` when given.
// The runner pool and the journal load when the command runs: imported at the top, every
// `svc` invocation (`svc --help` included) loaded the sandbox, the stdlib and their
// dependencies, about 4 MB of code (bench/PROFILE.md, round 43).
import fs from 'node:fs';
import type { Command } from 'commander';
import { CliError, EXIT_FAILURE, EXIT_NOT_ATTEMPTED, EXIT_USAGE } from '../errors';
import { subcommand } from '../help';
import type { CliContext } from '../context';

export function registerReplayCommand(root: Command, context: CliContext): void {
  const { io } = context;
  subcommand(root, 'replay', 'replay a run from its tape (GET /v1/runs/<id>/tape) here, offline; exit 0 when result, console and fuel match', ['svc replay tape.json'])
    .argument('<tape>', 'tape file (svc.tape/1 JSON)')
    .option('--secrets <file>', 'JSON object of the secrets the run\'s Packages read, by name (a tape never holds them; without a value a secret reads as not set)')
    .action(async (file: string, options: { secrets?: string }) => {
      const [{ RunnerPool }, { readTape, replayTape, TapeError }, { limitDefaults }] = await Promise.all([import('../../../sandbox'), import('../../journal'), import('../../config/schema')]);
      let tape;
      try {
        tape = readTape(JSON.parse(fs.readFileSync(file, 'utf8')));
      } catch (error) {
        throw new CliError(`svc replay: ${file}: ${(error as Error).message}`, EXIT_NOT_ATTEMPTED);
      }
      const secrets = options.secrets === undefined ? {} : readSecrets(options.secrets);
      const pool = new RunnerPool({ size: 1, memoryMb: limitDefaults.max_execution_memory });
      await pool.start();
      try {
        const verdict = await replayTape(tape, pool, secrets);
        for (const line of verdict.console) io.stderr(`${line}\n`);
        if (verdict.result !== null) io.stdout(`${verdict.result}\n`);
        if (!verdict.matches) throw new CliError(`svc replay: ${verdict.difference}`, EXIT_FAILURE);
        io.stderr(`replay matches: result, ${verdict.console.length} console lines and fuel (wasm ${verdict.fuel.wasm}, host ${verdict.fuel.host})\n`);
      } catch (error) {
        if (error instanceof TapeError) throw new CliError(`svc replay: ${error.message}`, EXIT_NOT_ATTEMPTED);
        throw error;
      } finally {
        await pool.stop();
      }
    });
}

/** `--secrets`: a JSON object of strings; the message names the file and what is wrong, never a value. */
function readSecrets(file: string): Record<string, string> {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    throw new CliError(`svc replay: --secrets ${file}: ${(error as Error).message}`, EXIT_USAGE);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    // JSON.parse's message quotes the text around the fault, which may be a secret.
    throw new CliError(`svc replay: --secrets ${file}: is not valid JSON`, EXIT_USAGE);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new CliError(`svc replay: --secrets ${file}: must be a JSON object of secret names to string values`, EXIT_USAGE);
  const wrong = Object.entries(parsed).find(([, value]) => typeof value !== 'string');
  if (wrong) throw new CliError(`svc replay: --secrets ${file}: the value of '${wrong[0]}' must be a string`, EXIT_USAGE);
  return parsed as Record<string, string>;
}
