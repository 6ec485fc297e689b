// `svc replay <tape.json>`: re-runs a tape's program here, in an isolate, against the tape's
// journal and nothing else (no network: every answer comes from the journal). Prints the
// result; exit 0 when result, console and fuel match the tape, 1 with the first divergence
// or difference, 2 usage, 3 the tape could not be replayed (unreadable, not replayable).
import fs from 'node:fs';
import type { Command } from 'commander';
import { RunnerPool } from '../../../sandbox';
import { readTape, replayTape, TapeError } from '../../journal';
import { limitDefaults } from '../../config/schema';
import { CliError, EXIT_FAILURE, EXIT_NOT_ATTEMPTED } from '../errors';
import { withExample } from '../help';
import type { CliContext } from '../context';

export function registerReplayCommand(root: Command, context: CliContext): void {
  const { io } = context;
  withExample(
    root
      .command('replay')
      .description('replay a run from its tape (GET /v1/runs/<id>/tape) here, offline; exit 0 when result, console and fuel match')
      .argument('<tape>', 'tape file (svc.tape/1 JSON)'),
    'svc replay tape.json',
  ).action(async (file: string) => {
    let tape;
    try {
      tape = readTape(JSON.parse(fs.readFileSync(file, 'utf8')));
    } catch (error) {
      throw new CliError(`svc replay: ${file}: ${(error as Error).message}`, EXIT_NOT_ATTEMPTED);
    }
    const pool = new RunnerPool({ size: 1, memoryMb: limitDefaults.max_execution_memory });
    await pool.start();
    try {
      const verdict = await replayTape(tape, pool);
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
