// `svc docs <name>`: a standard-library module's (`svc:fs`, or `fs`) or a built-in's
// (`fetch`, `crypto.subtle`) declarations, else a Package's name, description and
// declarations from this machine's stores (the server's own store under $SVC_HOME, then
// the CLI's); the readme is not printed.
import path from 'node:path';
import fs from 'node:fs';
import type { Command } from 'commander';
import { CliError } from '../errors';
import { subcommand } from '../help';
import { say, svcHome } from '../io';
import type { CliContext } from '../context';

export function registerDocsCommand(root: Command, context: CliContext): void {
  const { io } = context;
  subcommand(root, 'docs', "print the declarations of a standard-library module, a built-in or an installed Package", ['svc docs svc:http', 'svc docs crypto.subtle', 'svc docs @acme/billing'])
    .argument('<name>', 'svc:fs (or fs), fetch, Math.max, @scope/name')
    .action(async (name: string) => {
      if (!name.startsWith('@')) {
        // Loaded on demand: the standard library and TypeScript's declarations are large.
        const [{ hostModules }, { builtinDeclarations, isBuiltinName }] = await Promise.all([import('../../stdlib'), import('../../discovery')]);
        const modules = hostModules();
        const module = modules.get(name.startsWith('svc:') ? name : `svc:${name}`);
        // `crypto` is both a built-in and svc:crypto's short name: the built-in wins, as in discovery.
        if (module && (name.startsWith('svc:') || !isBuiltinName(name))) {
          say(io, `${module.name} — ${module.description}`);
          say(io, '');
          io.stdout(module.declarations.endsWith('\n') ? module.declarations : `${module.declarations}\n`);
          return;
        }
        const builtin = isBuiltinName(name) ? builtinDeclarations(name) : null;
        if (builtin) {
          say(io, `${name} — a built-in: in scope without an import`);
          say(io, '');
          io.stdout(builtin.endsWith('\n') ? builtin : `${builtin}\n`);
          return;
        }
        const known = [...modules.keys()].filter((m) => m.startsWith('svc:') && !['svc:security', 'svc:secrets', 'svc:test'].includes(m));
        throw new CliError(`'${name}' is not a standard-library module, a built-in or a Package name`, 1, [`modules: ${known.join(', ')}; Packages are named @scope/name`]);
      }
      const { localStoreRoot, packageFailure, PackageStore } = await import('../package-tools');
      const home = svcHome(io);
      const store = new PackageStore(path.join(home, 'server', 'packages'), localStoreRoot(home));
      let found;
      try {
        found = store.find(name);
      } catch (error) {
        packageFailure(error);
      }
      if (!found) throw new CliError(`package '${name}' is not installed in ${store.roots.join(' or ')}`, 1, [`install it with \`svc install <owner/repo> ${name}\` or \`svc build publish-local\``]);
      say(io, `${name} — ${found.metadata.description}`);
      say(io, '');
      io.stdout(fs.readFileSync(path.join(found.directory, 'declarations.d.ts'), 'utf8'));
    });
}
