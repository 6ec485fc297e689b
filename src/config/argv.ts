// Command-line flags, parsed by commander: `--name value` or `--name=value`; boolean flags
// take no value; `--allow-ip`, `--mcp-allowed-host` and `--add-host` repeat (each may hold a
// comma list); otherwise the last occurrence wins. An unknown flag, a missing value or a
// positional argument is a usage error in our words (commander's own output is silenced).
import { Command, CommanderError, Option } from 'commander';
import { ConfigError, usage } from './errors';
import { booleanFlags, repeatableFlags, scalarSettings } from './schema';

export interface ParsedFlags {
  values: Map<string, string>;
  booleans: Set<string>;
  repeated: Map<string, string[]>;
}

const valueFlags = ['config', ...scalarSettings.map((s) => s.flag)];

/** The flag commander's error names (`'--port <value>'`, `'--bogus'`, `'--help=x'`), and whether it came with `=`. */
function namedFlag(error: CommanderError): { name: string; inline: boolean } | null {
  const match = /'--([^'\s=]+)(=?)/.exec(error.message);
  return match ? { name: match[1], inline: match[2] === '=' } : null;
}

function usageError(error: CommanderError): ConfigError {
  const flag = namedFlag(error);
  if (error.code === 'commander.optionMissingArgument' && flag) return usage(`--${flag.name} needs a value`);
  if (error.code === 'commander.unknownOption' && flag) {
    if (flag.inline && (booleanFlags as readonly string[]).includes(flag.name)) return usage(`--${flag.name} takes no value`);
    return usage(`unknown flag --${flag.name}`);
  }
  return usage(error.message.replace(/^error: /, ''));
}

export function parseFlags(argv: string[]): ParsedFlags {
  const flags: ParsedFlags = { values: new Map(), booleans: new Set(), repeated: new Map() };
  const program = new Command()
    .exitOverride()
    .configureOutput({ writeOut: () => {}, writeErr: () => {} })
    .helpOption(false)
    .argument('[arguments...]');
  for (const name of booleanFlags) {
    program.addOption(new Option(`--${name}`));
    program.on(`option:${name}`, () => flags.booleans.add(name));
  }
  const repeatable = new Set<string>(repeatableFlags);
  for (const name of [...valueFlags, ...repeatableFlags]) {
    program.addOption(
      new Option(`--${name} <value>`).argParser((value: string) => {
        // `--port --bind x` is a forgotten value, not a port named `--bind`.
        if (value.startsWith('--')) throw usage(`--${name} needs a value`);
        if (repeatable.has(name)) flags.repeated.set(name, [...(flags.repeated.get(name) ?? []), value]);
        else flags.values.set(name, value);
        return value;
      }),
    );
  }
  try {
    program.parse(argv, { from: 'user' });
  } catch (error) {
    throw error instanceof CommanderError ? usageError(error) : error;
  }
  if (program.args.length > 0) throw usage(`unexpected argument \`${program.args[0]}\`; svc-server takes flags only`);
  return flags;
}
