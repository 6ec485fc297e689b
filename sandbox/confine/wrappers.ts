// The commands that start a runner inside its walls, strongest first: bubblewrap (its own
// namespaces and a file-system view of only what it reads, plus the seccomp filter),
// util-linux's unshare (its own network namespace), setpriv alone (an unprivileged user,
// no_new_privs, no capabilities). Which one this host allows is found by the probe.
import fs from 'node:fs';
import path from 'node:path';
import { seccompFilter } from './seccomp';

export type WrapperName = 'bubblewrap' | 'unshare' | 'setpriv';

/** Host tools found on PATH (absolute paths), and who the server runs as. */
export interface Host {
  tools: Partial<Record<'bwrap' | 'unshare' | 'setpriv', string>>;
  /** The server runs as root: runners then switch to `runnerUser`. */
  root: boolean;
  runnerUser: { uid: number; gid: number };
}

export interface Wrapper {
  name: WrapperName;
  command: string;
  /** Arguments before the Node binary and its own arguments. */
  prefix: string[];
  /** Bytes to write to the child's fd 4 (bubblewrap reads its seccomp filter there, then closes it). */
  seccomp: Buffer | null;
}

/** The child's descriptor that carries the seccomp filter to bubblewrap (0-2 stdio, 3 the IPC channel). */
export const SECCOMP_FD = 4;

/** Every wrapper this host has the tools for, strongest first. */
export function candidateWrappers(host: Host, entry: string): Wrapper[] {
  const { bwrap, unshare, setpriv } = host.tools;
  const candidates: Wrapper[] = [];
  // As root, bubblewrap builds the view and setpriv (inside it) drops to the runner user.
  if (bwrap && (setpriv || !host.root)) candidates.push(bubblewrap(host, bwrap, setpriv, entry));
  if (unshare && setpriv) candidates.push({ name: 'unshare', command: unshare, prefix: [...(host.root ? [] : ['--user']), '--net', '--ipc', '--uts', '--', ...dropPrivileges(host, setpriv)], seccomp: null });
  if (setpriv) candidates.push({ name: 'setpriv', command: setpriv, prefix: dropPrivileges(host, setpriv).slice(1), seccomp: null });
  return candidates;
}

/** setpriv's command line: the runner user when root, no_new_privs always, no capabilities to keep or regain. */
function dropPrivileges(host: Host, setpriv: string): string[] {
  if (!host.root) return [setpriv, '--no-new-privs', '--'];
  const { uid, gid } = host.runnerUser;
  return [setpriv, `--reuid=${uid}`, `--regid=${gid}`, '--clear-groups', '--inh-caps=-all', '--bounding-set=-all', '--no-new-privs', '--'];
}

function bubblewrap(host: Host, bwrap: string, setpriv: string | undefined, entry: string): Wrapper {
  const seccomp = seccompFilter();
  const prefix = [
    '--unshare-net', '--unshare-ipc', '--unshare-pid', '--unshare-uts', '--unshare-cgroup-try',
    ...(host.root ? [] : ['--unshare-user']),
    '--die-with-parent', '--new-session',
    ...systemView(),
    '--proc', '/proc', '--dev', '/dev',
    ...codeView(readOnlyPaths(entry)),
    '--chdir', '/',
    ...(seccomp ? ['--seccomp', String(SECCOMP_FD)] : []),
    '--',
    ...(host.root && setpriv ? dropPrivileges(host, setpriv) : []),
  ];
  return { name: 'bubblewrap', command: bwrap, prefix, seccomp };
}

/** /usr (Node's shared libraries, the time zone data) and the top-level links or folders into it; the local time zone. */
function systemView(): string[] {
  const view = ['--ro-bind', '/usr', '/usr'];
  for (const top of ['/bin', '/sbin', '/lib', '/lib32', '/lib64']) {
    const stat = fs.lstatSync(top, { throwIfNoEntry: false });
    if (stat?.isSymbolicLink()) view.push('--symlink', fs.readlinkSync(top), top);
    else if (stat?.isDirectory()) view.push('--ro-bind', top, top);
  }
  // /etc holds only the time zone: a folder the runner user can search, so anything else there is simply absent.
  view.push('--perms', '0755', '--dir', '/etc', '--ro-bind-try', '/etc/localtime', '/etc/localtime');
  return view;
}

/** Binds each path at its own place; the folders above them are made searchable (bubblewrap makes them 0700 otherwise). */
function codeView(paths: Set<string>): string[] {
  const folders = new Set<string>();
  for (const p of paths) for (let dir = path.dirname(p); dir !== path.dirname(dir); dir = path.dirname(dir)) folders.add(dir);
  const view = [...folders].sort().flatMap((dir) => ['--perms', '0755', '--dir', dir]);
  for (const p of paths) view.push('--ro-bind', p, p);
  return view;
}

/**
 * What the runner reads besides /usr: Node itself when installed elsewhere, and from the
 * package the entry belongs to only its package.json (module type), node_modules
 * (isolated-vm, the Temporal polyfill) and the entry's own top folder (dist/, or the
 * TypeScript sources when run through tsx). Never the server's home or the rest of the tree.
 */
function readOnlyPaths(entry: string): Set<string> {
  const paths = new Set<string>();
  const node = fs.realpathSync(process.execPath);
  if (!node.startsWith('/usr/')) paths.add(path.dirname(path.dirname(node)));
  const realEntry = fs.realpathSync(entry);
  const root = packageRoot(realEntry);
  for (const name of ['package.json', 'node_modules']) if (fs.existsSync(path.join(root, name))) paths.add(path.join(root, name));
  paths.add(path.join(root, path.relative(root, realEntry).split(path.sep)[0]!));
  if (!realEntry.endsWith('.js')) for (const name of ['src', 'sandbox', 'tsconfig.json']) if (fs.existsSync(path.join(root, name))) paths.add(path.join(root, name));
  return paths;
}

function packageRoot(file: string): string {
  for (let dir = path.dirname(file); ; dir = path.dirname(dir)) {
    if (fs.existsSync(path.join(dir, 'package.json')) && fs.existsSync(path.join(dir, 'node_modules'))) return dir;
    if (path.dirname(dir) === dir) return path.dirname(file);
  }
}

/** Writes the filter to the wrapper's descriptor, or just closes it; a wrapper that exits early is reported by its exit, not here. */
export function sendSeccomp(stream: NodeJS.WritableStream | null | undefined, filter: Buffer | null): void {
  if (!stream) return;
  stream.on('error', () => {});
  if (filter) stream.end(filter);
  else stream.end();
}
