// `svc run` without --remote: the Blueprint file (or the built-in compute-only one), its
// variables, secrets and file area bound as the server binds a session, then one run
// through the local executor. Loaded only when a local run is asked for.
import { parseBlueprint, type Blueprint } from '../blueprints';
import { PackageStore, storeLookup } from '../packages';
import { localStoreRoot } from '../packages/local';
import { ConfigError, parseRunSettings, type RunSettings } from '../config';
import { bindHarnessSecrets, bindVariables, fillFileArea } from '../sessions';
import { readBlueprintFile } from './blueprint-file';
import type { RunOptions } from './commands/run';
import { blueprintError } from './diagnostics';
import { CliError, EXIT_NOT_ATTEMPTED, UsageError } from './errors';
import { svcHome, type CliIo } from './io';
import { localTypechecker, runLocally } from './local-executor';

/** A compute-only Blueprint for runs without --blueprint. */
const BUILT_IN_BLUEPRINT = 'name: local\ndefault: deny\n';

export async function runHere(io: CliIo, version: string, options: RunOptions, code: string, variables: Record<string, string>, secrets: Record<string, string>) {
  const settings = localSettings(io, options);
  const { blueprint, label } = localBlueprint(io, options.blueprint);
  const bound = bindVariables(blueprint.declarations, variables);
  if (!bound.ok) throw new CliError(`${label}: ${bound.error}`, EXIT_NOT_ATTEMPTED, ['pass each declared variable with --var NAME=VALUE']);
  for (const name of Object.keys(secrets)) {
    if (!blueprint.declarations.secrets.has(name)) throw new CliError(`${label}: secret '${name}' is not declared in the Blueprint`, EXIT_NOT_ATTEMPTED, ['declare it under `secrets:` or drop --secret ' + name]);
  }
  const harness = Object.fromEntries(Object.entries(secrets).filter(([name]) => blueprint.declarations.secrets.get(name)?.source === 'harness'));
  const harnessBound = bindHarnessSecrets(blueprint.declarations, harness);
  if (!harnessBound.ok) throw new CliError(`${label}: ${harnessBound.error}`, EXIT_NOT_ATTEMPTED, ['export the value in the environment and pass --secret NAME']);
  const area = fillFileArea(blueprint.vfs, bound.value);
  if (!area.ok) throw new CliError(`${label}: ${area.error}`, EXIT_NOT_ATTEMPTED);
  const report = await runLocally({
    code,
    blueprint,
    variables: bound.value,
    secrets,
    fileArea: area.value,
    settings,
    userAgent: `svc/${version}`,
    packages: storeLookup(new PackageStore(localPackageStore(io))),
    typechecker: localTypechecker(io, svcHome(io)),
  });
  return { ...report.response, consoleAll: report.lastRun?.console ?? report.response.console };
}

function localSettings(io: CliIo, options: RunOptions): RunSettings {
  const argv = [...(options.allowLocalhost ? ['--allow-localhost'] : []), ...(options.allowPrivate ? ['--allow-private'] : []), ...options.allowIp.flatMap((ip) => ['--allow-ip', ip]), ...options.addHost.flatMap((entry) => ['--add-host', entry])];
  try {
    return parseRunSettings({ argv, env: io.env, cwd: io.cwd });
  } catch (error) {
    if (error instanceof ConfigError) throw new UsageError(error.message);
    throw error;
  }
}

function localBlueprint(io: CliIo, file: string | undefined): { blueprint: Blueprint; label: string } {
  const source = file !== undefined ? readBlueprintFile(file, io.cwd) : { file: 'built-in blueprint', text: BUILT_IN_BLUEPRINT };
  const parsed = parseBlueprint(source.text);
  if (!parsed.ok) throw blueprintError(source.file, { code: parsed.problem.code, message: parsed.problem.message, diagnostic: parsed.problem.diagnostic });
  const blueprint = parsed.blueprint;
  const volume = blueprint.vfs.mode === 'named' ? ['vfs', 'volume'] : Object.keys(blueprint.vfs.mounts ?? {}).length > 0 ? ['vfs', 'mounts'] : null;
  if (volume) {
    throw blueprintError(source.file, {
      code: 'local_volume',
      message: 'local runs cannot use volumes (they live on a server); drop the volume from `vfs` for a local run, or run it on the server with --remote',
      diagnostic: { path: volume },
    });
  }
  return { blueprint, label: source.file };
}

/** The CLI's package store, $SVC_HOME/packages (default ~/.svc/packages); it may not exist yet. */
function localPackageStore(io: CliIo): string {
  return localStoreRoot(svcHome(io));
}
