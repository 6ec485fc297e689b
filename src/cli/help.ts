// Help conventions shared by every command group: each command's help ends with an example.
import type { Command } from 'commander';

/** Appends an "Example" section to a command's help. */
export function withExample(command: Command, ...lines: string[]): Command {
  return command.addHelpText('after', `\nExample${lines.length > 1 ? 's' : ''}:\n${lines.map((line) => `  $ ${line}`).join('\n')}\n`);
}

/** Declares a subcommand of `parent` (a group such as `svc runs`, or a verb) whose help ends with `examples`. */
export function subcommand(parent: Command, name: string, description: string, examples: readonly string[]): Command {
  return withExample(parent.command(name).description(description), ...examples);
}

/** Pads every column but the last so rows line up. */
export function alignColumns(rows: readonly string[][]): string[] {
  const widths: number[] = [];
  for (const row of rows) row.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, cell.length)));
  return rows.map((row) => row.map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i]))).join('  '));
}
