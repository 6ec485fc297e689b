// `svc install <spec> [@scope/name]`: the server's install procedure into the CLI's
// own store $SVC_HOME/packages, with GH_TOKEN / GITHUB_TOKEN when set.
import type { Command } from 'commander';
import { subcommand } from '../help';
import { UsageError } from '../errors';
import { denyWarnings, envValue, say, svcHome, warn, type CliIo } from '../io';
import type { CliContext } from '../context';

export function registerInstallCommand(root: Command, context: CliContext): void {
  const { io } = context;
  subcommand(root, 'install', 'install Packages from a GitHub repository into the local store $SVC_HOME/packages (SVC_OFFICIAL_REPOSITORY=owner/repo names the repository that may publish @svc/…)', ['svc install acme/billing-pkgs@v1.2.0 @acme/billing'])
    .argument('<repo>', 'owner/repo, github.com/owner/repo or https://github.com/owner/repo, optionally @<ref>')
    .argument('[package]', 'only this Package of the repository (and what it needs)')
    .option('--ref <ref>', 'branch, tag or commit (wins over @<ref>)')
    .option('--upgrade', 'replace a Package installed from a different commit')
    .option('--deny-warnings', 'fail on any code warning (also SVC_DENY_WARNINGS=1)')
    .action(async (repo: string, name: string | undefined, options: { ref?: string; upgrade?: boolean; denyWarnings?: boolean }) => {
      const tools = await import('../package-tools');
      const { installFromRepository, localStoreRoot, packageFailure, PackageStore } = tools;
      try {
        const result = await installFromRepository(
          { url: repo, ref: options.ref ?? null, package: name ?? null, upgrade: options.upgrade === true, denyWarnings: denyWarnings(io, options.denyWarnings) },
          {
            apiUrl: envValue(io, 'SVC_GITHUB_API_URL') ?? 'https://api.github.com',
            tokenFile: null,
            token: envValue(io, 'GH_TOKEN') ?? envValue(io, 'GITHUB_TOKEN') ?? null,
            denyWarnings: false,
            svcVersion: context.version,
            store: new PackageStore(localStoreRoot(svcHome(io))),
            officialRepository: officialRepository(io, tools),
          },
        );
        for (const line of result.warnings) warn(io, line);
        for (const p of result.installed) say(io, `installed ${p.name} ${p.version} (${p.digest})`);
        for (const p of result.up_to_date) say(io, `up to date ${p.name} ${p.version}`);
      } catch (error) {
        packageFailure(error);
      }
    });
}

/** SVC_OFFICIAL_REPOSITORY (owner/repo), as the server's `official_repository`; unset = none. */
function officialRepository(io: CliIo, { ConfigError, parseRepositoryName }: typeof import('../package-tools')): { owner: string; repo: string } | null {
  const raw = envValue(io, 'SVC_OFFICIAL_REPOSITORY');
  if (raw === undefined) return null;
  try {
    return parseRepositoryName(raw, '$SVC_OFFICIAL_REPOSITORY');
  } catch (error) {
    if (error instanceof ConfigError) throw new UsageError(error.message);
    throw error;
  }
}
