// Command-line flags: `--name value` or `--name=value`; boolean flags take no value;
// `--allow-ip`, `--mcp-allowed-host` and `--add-host` repeat (each may hold a comma list); otherwise the
// last occurrence wins. An unknown flag or a missing value is a usage error.
import { usage } from './errors';
import { booleanFlags, repeatableFlags, scalarSettings } from './schema';

export interface ParsedFlags {
  values: Map<string, string>;
  booleans: Set<string>;
  repeated: Map<string, string[]>;
}

const valueFlags = new Set(['config', ...scalarSettings.map((s) => s.flag)]);

export function parseFlags(argv: string[]): ParsedFlags {
  const flags: ParsedFlags = { values: new Map(), booleans: new Set(), repeated: new Map() };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (!arg.startsWith('--')) throw usage(`unexpected argument \`${arg}\`; svc-server takes flags only`);
    const eq = arg.indexOf('=');
    const name = arg.slice(2, eq === -1 ? undefined : eq);
    const inline = eq === -1 ? undefined : arg.slice(eq + 1);
    if ((booleanFlags as readonly string[]).includes(name)) {
      if (inline !== undefined) throw usage(`--${name} takes no value`);
      flags.booleans.add(name);
      continue;
    }
    const isRepeatable = (repeatableFlags as readonly string[]).includes(name);
    if (!valueFlags.has(name) && !isRepeatable) throw usage(`unknown flag --${name}`);
    let value = inline;
    if (value === undefined) {
      // `--port --bind x` is a forgotten value, not a port named `--bind`.
      if (i + 1 >= argv.length || argv[i + 1].startsWith('--')) throw usage(`--${name} needs a value`);
      value = argv[++i];
    }
    if (isRepeatable) flags.repeated.set(name, [...(flags.repeated.get(name) ?? []), value]);
    else flags.values.set(name, value);
  }
  return flags;
}
