// Host side of `svc:git`: repositories in the file area through
// isomorphic-git. init, clone, fetch, pull and commit are gated (`git.*` with the
// normalised path and remote); the rest needs no capability. Writes obey read-only places
// and size limits; remotes are HTTPS only and reached through the egress guard.
import nodeFs from 'node:fs';
import path from 'node:path';
import git from 'isomorphic-git';
import type { Dispatcher } from 'undici';
import { EgressBlockedError } from '../../network';
import { QuotaExceededError } from '../../policy';
import { placeFs, type FileArea, type Place, type PlaceFs } from '../../vfs';
import { area, guest, hostWork, requireWritable } from '../fs/area';
import { HOST_FUEL } from '../fuel';
import { gated, ungated, type HostCall, type HostOperation, type RunContext } from '../types';
import { hostTask } from '../host-tasks';
import { currentBranch, type LocalGitInput, type RepoSpec, type StatusEntry } from './local';
import { gitHttpClient } from './transport';

import type { GitServices } from './services';

export type { GitServices };

interface Repo {
  files: FileArea;
  guestPath: string;
  dir: string;
  place: Place;
  /** The place's file system, confined and link-free: the only one isomorphic-git is given. */
  fs: PlaceFs;
}

function services(call: RunContext): GitServices {
  const g = call.services.git;
  if (!g) throw new Error('git: this Blueprint has no git block, so svc:git is not available');
  return g;
}

function repoAt(call: RunContext, raw: unknown, fn: string): Repo {
  if (typeof raw !== 'string' || raw === '') throw new TypeError(`git.${fn}: path must be a non-empty string`);
  const files = area(call, fn);
  const guestPath = guest(files, raw, fn);
  const { hostPath, place } = hostWork(fn, guestPath, () => files.resolve(guestPath));
  return { files, guestPath, dir: hostPath, place, fs: placeFs(files, place) };
}

function openRepo(call: RunContext, raw: unknown, fn: string): Repo {
  const repo = repoAt(call, raw, fn);
  if (!nodeFs.lstatSync(path.join(repo.dir, '.git'), { throwIfNoEntry: false })?.isDirectory()) throw new Error(`git.${fn} ${repo.guestPath}: not a repository root`);
  return repo;
}

/** The repository operations the catalogue leaves ungated: why. */
const LOCAL_READ = 'reads a repository inside the file area the run already reaches; the git catalogue gates only init, clone, commit, fetch and pull';
const LOCAL_CHANGE = 'changes repository metadata inside a writable place of the file area (checked as read-only or not); the git catalogue gates only init, clone, commit, fetch and pull';

/** An ungated operation on an existing repository: `work(call, repo, args)`. */
function onRepo(fn: string, because: string, work: (call: HostCall, repo: Repo, args: unknown[]) => unknown): HostOperation {
  return ungated<{ repo: Repo; args: unknown[] }>(because, {
    parse: (args, run) => ({ repo: openRepo(run, args[0], fn), args }),
    run: (call, { repo, args }) => {
      call.charge(HOST_FUEL.SYSCALL);
      return work(call, repo, args);
    },
  });
}

/** fetch and pull: gated as git.fetch with the remote the repository names. */
async function remoteParams(run: RunContext, args: unknown[], fn: string) {
  const g = services(run);
  const repo = openRepo(run, args[0], fn);
  const remoteName = typeof args[1] === 'string' && args[1] !== '' ? args[1] : 'origin';
  const branch = typeof args[2] === 'string' ? args[2] : '';
  const remote = (await git.listRemotes({ fs: repo.fs, dir: repo.dir })).find((r) => r.remote === remoteName)?.url;
  if (!remote) throw new Error(`git.${fn} ${repo.guestPath}: no remote named ${remoteName}`);
  return { g, repo, remoteName, branch, context: { path: repo.guestPath, remoteName, remote, branch } };
}

type Remote = Awaited<ReturnType<typeof remoteParams>>;

/**
 * fetch and pull: gated as git.fetch, on a writable repository, charged one syscall; the
 * transfer runs as one network call and the size limit is checked after it. `plan` reads what
 * it needs before the transfer and says how to report after it.
 */
function fromRemote<T>(fn: 'fetch' | 'pull', plan: (remote: Remote, call: HostCall) => Promise<{ transfer: () => Promise<unknown>; result: () => Promise<T> }>): HostOperation {
  return gated({
    parse: (args, run) => remoteParams(run, args, fn),
    gate: ({ context }) => ({ capability: 'git.fetch', context }),
    run: async (call, remote, allowed) => {
      const context = allowed[0].context;
      writable(call, remote.repo, 'git.fetch', context);
      call.charge(HOST_FUEL.SYSCALL);
      const { transfer, result } = await plan(remote, call);
      await networkCall(call, fn, 'git.fetch', context, transfer);
      await checkQuota(call, remote.repo, fn, 'git.fetch', context);
      return result();
    },
  });
}

function httpsRemote(url: unknown, fn: string): string {
  if (typeof url !== 'string') throw new TypeError(`git.${fn}: the remote URL must be a string`);
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new TypeError(`git.${fn}: ${JSON.stringify(url)} is not a URL`);
  }
  if (parsed.protocol !== 'https:') throw new TypeError(`git.${fn}: remotes are HTTPS only`);
  if (parsed.username || parsed.password) throw new TypeError(`git.${fn}: credentials never travel in URLs; the operator's git settings supply them`);
  return parsed.href;
}

function writable(call: HostCall, repo: Repo, capability: string, context: Record<string, unknown>): void {
  requireWritable(call, repo.place, capability, context, repo.guestPath);
}

async function checkQuota(call: HostCall, repo: Repo, fn: string, capability: string, context: Record<string, unknown>, undo?: () => void): Promise<void> {
  if (repo.place.sizeLimit === null) return;
  repo.files.invalidate(repo.place);
  const used = await repo.files.usage(repo.place);
  if (used <= repo.place.sizeLimit) return;
  undo?.();
  throw call.refuse(capability, context, 'quota', new QuotaExceededError(`git.${fn} ${repo.guestPath}: the filesystem's size limit of ${repo.place.sizeLimit} bytes would be exceeded (${used} bytes after the operation)`));
}

function network(call: HostCall, g: GitServices) {
  return {
    http: gitHttpClient(g.dispatcher, call.signal),
    onAuth: () => {
      const token = g.token();
      return g.username && token ? { username: g.username, password: token } : { cancel: true };
    },
  };
}

async function networkCall<T>(call: HostCall, fn: string, capability: string, context: Record<string, unknown>, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    const cause = (error as { cause?: unknown }).cause;
    const blocked = error instanceof EgressBlockedError ? error : cause instanceof EgressBlockedError ? cause : null;
    if (blocked) throw call.refuse(capability, context, 'egress_guard', new Error(blocked.message));
    if (error instanceof QuotaExceededError || (error as Error).name === 'PermissionDeniedError') throw error;
    throw new Error(`git.${fn}: ${(error as Error).message}`);
  }
}

function author(g: GitServices, fn: string) {
  if (!g.identity) throw new Error(`git.${fn}: ${g.identityProblem ?? 'the Blueprint has no git identity'}`);
  return { name: g.identity.name, email: g.identity.email };
}

function specOf(repo: Repo): RepoSpec {
  return { area: repo.files.describe(), placeRoot: repo.place.guestRoot, dir: repo.dir, guestPath: repo.guestPath };
}

/** Local work whose cost grows with the repository's files: in a host worker thread (./local). */
async function offloaded<T>(call: HostCall, repo: Repo, fn: string, task: LocalGitInput extends infer I ? (I extends { repo: RepoSpec } ? Omit<I, 'repo'> : never) : never): Promise<T> {
  try {
    return (await hostTask('git', { ...task, repo: specOf(repo) } as LocalGitInput, { signal: call.signal, what: `git.${fn} ${repo.guestPath}`, tenant: call.principal })) as T;
  } finally {
    // git's writes are not counted byte by byte: the next size check measures again.
    if (task.op !== 'status' && task.op !== 'diff') repo.files.invalidate(repo.place);
  }
}

export const gitOperations: Record<string, HostOperation> = {
  open: ungated('checks that a path of the file area is a repository root; nothing is read beyond that', {
    parse: (args, run) => {
      services(run);
      return openRepo(run, args[0], 'open');
    },
    run: (call, repo) => {
      call.charge(HOST_FUEL.SYSCALL);
      return repo.guestPath;
    },
  }),

  init: gated({
    parse: (args, run) => {
      services(run);
      const repo = repoAt(run, args[0], 'init');
      const branch = typeof (args[1] as { branch?: unknown } | null)?.branch === 'string' ? (args[1] as { branch: string }).branch : 'main';
      return { repo, branch };
    },
    gate: ({ repo }) => ({ capability: 'git.init', context: { path: repo.guestPath } }),
    run: async (call, { repo, branch }, allowed) => {
      writable(call, repo, 'git.init', allowed[0].context);
      nodeFs.mkdirSync(repo.dir, { recursive: true });
      await git.init({ fs: repo.fs, dir: repo.dir, defaultBranch: branch });
      call.charge(HOST_FUEL.SYSCALL * 4);
      return repo.guestPath;
    },
  }),

  clone: gated({
    parse: (args, run) => {
      const g = services(run);
      const remote = httpsRemote(args[0], 'clone');
      const repo = repoAt(run, args[1], 'clone');
      const options = (args[2] ?? {}) as { branch?: string; depth?: number };
      return { g, remote, repo, options };
    },
    gate: ({ remote, repo, options }) => ({ capability: 'git.clone', context: { path: repo.guestPath, remoteName: 'origin', remote, branch: options.branch ?? '' } }),
    run: async (call, { g, remote, repo, options }, allowed) => {
      const context = allowed[0].context;
      writable(call, repo, 'git.clone', context);
      if (nodeFs.existsSync(repo.dir) && nodeFs.readdirSync(repo.dir).length > 0) throw new Error(`git.clone ${repo.guestPath}: the directory is not empty`);
      const created = !nodeFs.existsSync(repo.dir);
      nodeFs.mkdirSync(repo.dir, { recursive: true });
      const undo = () => (created ? nodeFs.rmSync(repo.dir, { recursive: true, force: true }) : nodeFs.rmSync(path.join(repo.dir, '.git'), { recursive: true, force: true }));
      try {
        await networkCall(call, 'clone', 'git.clone', context, () =>
          git.clone({ fs: repo.fs, dir: repo.dir, url: remote, ref: options.branch, singleBranch: options.branch !== undefined, depth: options.depth, ...network(call, g) }),
        );
      } catch (error) {
        undo();
        throw error;
      }
      // Each branch actually fetched is checked too.
      const fetched = await git.listBranches({ fs: repo.fs, dir: repo.dir, remote: 'origin' });
      for (const branch of fetched.filter((b) => b !== 'HEAD')) {
        try {
          call.gate('git.clone', { ...context, branch });
        } catch (error) {
          undo();
          throw error;
        }
      }
      await checkQuota(call, repo, 'clone', 'git.clone', context, undo);
      return repo.guestPath;
    },
  }),

  status: onRepo('status', LOCAL_READ, async (call, repo) => {
    const { files, ...status } = await offloaded<{ entries: StatusEntry[]; clean: boolean; branch?: string; files: number }>(call, repo, 'status', { op: 'status' });
    call.charge(HOST_FUEL.ELEM * files);
    return status;
  }),

  log: onRepo('log', LOCAL_READ, async (_call, repo, args) => {
    const options = (args[1] ?? {}) as { limit?: number; offset?: number };
    const limit = options.limit ?? 50;
    const offset = options.offset ?? 0;
    if (!Number.isInteger(limit) || limit < 1 || limit > 1000) throw new RangeError('git.log: limit must be a whole number from 1 to 1000');
    if (!Number.isInteger(offset) || offset < 0) throw new RangeError('git.log: offset must be a non-negative whole number');
    let commits: Awaited<ReturnType<typeof git.log>> = [];
    try {
      commits = await git.log({ fs: repo.fs, dir: repo.dir, depth: offset + limit + 1 });
    } catch {
      commits = []; // no commits yet
    }
    const page = commits.slice(offset, offset + limit).map((c) => ({ id: c.oid, message: c.commit.message, authorName: c.commit.author.name, authorEmail: c.commit.author.email }));
    return { commits: page, ...(commits.length > offset + limit ? { nextOffset: offset + limit } : {}) };
  }),

  branches: onRepo('branches', LOCAL_READ, async (_call, repo) => {
    const current = await currentBranch(repo);
    const names = await git.listBranches({ fs: repo.fs, dir: repo.dir });
    const out = [];
    for (const name of names) out.push({ name, id: await git.resolveRef({ fs: repo.fs, dir: repo.dir, ref: name }), current: name === current });
    return out;
  }),

  remotes: onRepo('remotes', LOCAL_READ, async (_call, repo) => (await git.listRemotes({ fs: repo.fs, dir: repo.dir })).map((r) => ({ name: r.remote, url: r.url }))),

  add: onRepo('add', LOCAL_CHANGE, async (call, repo, args) => {
    const paths = args[1];
    if (!Array.isArray(paths) || paths.some((p) => typeof p !== 'string')) throw new TypeError('git.add: paths must be a list of strings');
    writable(call, repo, 'git.add', { path: repo.guestPath });
    for (const p of paths as string[]) {
      const relative = p === '.' ? '.' : p.startsWith('/') ? path.posix.relative(repo.guestPath, p) : p;
      if (relative.startsWith('..')) throw new Error(`git.add ${p}: the path is outside the repository`);
    }
    const relativePaths = (paths as string[]).map((p) => (p === '.' ? '.' : p.startsWith('/') ? path.posix.relative(repo.guestPath, p) : p));
    await offloaded(call, repo, 'add', { op: 'add', relativePaths });
    return undefined;
  }),

  commit: gated({
    parse: async (args, run) => {
      const g = services(run);
      const repo = openRepo(run, args[0], 'commit');
      if (typeof args[1] !== 'string' || args[1].trim() === '') throw new TypeError('git.commit: message must be a non-empty string');
      return { g, repo, message: args[1], branch: await currentBranch(repo) };
    },
    gate: ({ repo, branch }) => ({ capability: 'git.commit', context: { path: repo.guestPath, branch } }),
    run: async (call, { g, repo, message }, allowed) => {
      writable(call, repo, 'git.commit', allowed[0].context);
      const who = author(g, 'commit');
      return offloaded<string>(call, repo, 'commit', { op: 'commit', message, author: who });
    },
  }),

  createBranch: onRepo('createBranch', LOCAL_CHANGE, async (call, repo, args) => {
    if (typeof args[1] !== 'string' || args[1] === '' || Buffer.byteLength(args[1]) > 250) throw new TypeError('git.createBranch: name must be 1 to 250 bytes');
    writable(call, repo, 'git.createBranch', { path: repo.guestPath });
    const start = typeof args[2] === 'string' ? args[2] : 'HEAD';
    await git.branch({ fs: repo.fs, dir: repo.dir, ref: args[1], object: start });
    return undefined;
  }),

  switchBranch: onRepo('switchBranch', LOCAL_CHANGE, async (call, repo, args) => {
    if (typeof args[1] !== 'string' || args[1] === '') throw new TypeError('git.switchBranch: name must be a non-empty string');
    writable(call, repo, 'git.switchBranch', { path: repo.guestPath });
    await offloaded(call, repo, 'switchBranch', { op: 'switchBranch', branch: args[1] });
    return undefined;
  }),

  addRemote: onRepo('addRemote', LOCAL_CHANGE, async (_call, repo, args) => {
    if (typeof args[1] !== 'string' || args[1] === '' || Buffer.byteLength(args[1]) > 250) throw new TypeError('git.addRemote: name must be 1 to 250 bytes');
    await git.addRemote({ fs: repo.fs, dir: repo.dir, remote: args[1], url: httpsRemote(args[2], 'addRemote') });
    return undefined;
  }),

  setRemoteUrl: onRepo('setRemoteUrl', LOCAL_CHANGE, async (_call, repo, args) => {
    if (typeof args[1] !== 'string' || args[1] === '') throw new TypeError('git.setRemoteUrl: name must be a non-empty string');
    await git.setConfig({ fs: repo.fs, dir: repo.dir, path: `remote.${args[1]}.url`, value: httpsRemote(args[2], 'setRemoteUrl') });
    return undefined;
  }),

  fetch: fromRemote('fetch', async ({ g, repo, remoteName, branch }, call) => ({
    transfer: () => git.fetch({ fs: repo.fs, dir: repo.dir, remote: remoteName, ref: branch || undefined, singleBranch: branch !== '', ...network(call, g) }),
    result: async () => {
      const branches = await git.listBranches({ fs: repo.fs, dir: repo.dir, remote: remoteName });
      return { branches: branches.filter((b) => b !== 'HEAD') };
    },
  })),

  pull: fromRemote('pull', async ({ g, repo, remoteName, branch }, call) => {
    const previous = await git.resolveRef({ fs: repo.fs, dir: repo.dir, ref: 'HEAD' });
    const who = g.identity ?? { name: 'svc', email: 'svc@localhost' };
    return {
      transfer: () => git.pull({ fs: repo.fs, dir: repo.dir, remote: remoteName, remoteRef: branch || undefined, fastForwardOnly: true, singleBranch: true, author: who, committer: who, ...network(call, g) }),
      result: async () => ({ previous, current: await git.resolveRef({ fs: repo.fs, dir: repo.dir, ref: 'HEAD' }) }),
    };
  }),
  diff: onRepo('diff', LOCAL_READ, async (call, repo, args) => {
    const options = (args[1] ?? {}) as { mode?: string; from?: string; to?: string };
    const mode = options.mode ?? 'unstaged';
    if (!['unstaged', 'staged', 'commits'].includes(mode)) throw new TypeError('git.diff: mode is unstaged, staged or commits');
    if (mode === 'commits' && typeof options.from !== 'string') throw new TypeError('git.diff: mode commits needs `from`');
    const [left, right] = mode === 'unstaged' ? ['STAGE', 'WORKDIR'] : mode === 'staged' ? ['HEAD', 'STAGE'] : [options.from!, options.to ?? 'HEAD'];
    return offloaded<{ patch: string; binaryPaths: string[] }>(call, repo, 'diff', { op: 'diff', left, right });
  }),

  show: onRepo('show', LOCAL_READ, async (_call, repo, args) => {
    if (typeof args[1] !== 'string' || typeof args[2] !== 'string') throw new TypeError('git.show: ref and path must be strings');
    const oid = await git.resolveRef({ fs: repo.fs, dir: repo.dir, ref: args[1] }).catch(() => args[1] as string);
    const { blob } = await git.readBlob({ fs: repo.fs, dir: repo.dir, oid, filepath: args[2].replace(/^\//, '') });
    return new Uint8Array(blob);
  }),
};
