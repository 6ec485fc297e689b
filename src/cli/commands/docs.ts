// `svc docs <name>`: a Package's name, description and declarations from this machine's
// stores (the server's own store under $SVC_HOME, then the CLI's); the readme is not printed.
import path from 'node:path';
import fs from 'node:fs';
import type { Command } from 'commander';
import { PackageStore } from '../../packages';
import { localStoreRoot } from '../../packages/local';
import { CliError } from '../errors';
import { withExample } from '../help';
import { say } from '../io';
import type { CliContext } from '../program';
import { packageFailure, svcHome } from './build';

export function registerDocsCommand(root: Command, context: CliContext): void {
  const { io } = context;
  withExample(root.command('docs').description("print an installed Package's description and declarations").argument('<name>', '@scope/name'), 'svc docs @acme/billing').action((name: string) => {
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
