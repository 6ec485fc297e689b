// `svc:git`'s local work on a repository (hashing files for add and status, diffs,
// commits, checkouts): its cost grows with the files a program wrote, so it runs in a host
// worker thread (src/stdlib/host-tasks.ts) on a copy of the run's file area, through the
// same confined, link-free file system as on the server's thread.
import path from 'node:path';
import git from 'isomorphic-git';
import { FileArea, placeFs, type AreaDescription, type PlaceFs } from '../../vfs';
import { unifiedDiffHere } from '../code/scan';

/** The repository as it travels to the worker. */
export interface RepoSpec {
  area: AreaDescription;
  /** Guest path of the place the repository is in (its root or a mount point). */
  placeRoot: string;
  /** Host path of the repository's root. */
  dir: string;
  guestPath: string;
}

export interface LocalRepo {
  fs: PlaceFs;
  dir: string;
  guestPath: string;
}

export type LocalGitInput =
  | { op: 'status'; repo: RepoSpec }
  | { op: 'add'; repo: RepoSpec; relativePaths: string[] }
  | { op: 'diff'; repo: RepoSpec; left: string; right: string }
  | { op: 'commit'; repo: RepoSpec; message: string; author: { name: string; email: string } }
  | { op: 'switchBranch'; repo: RepoSpec; branch: string };

export interface StatusEntry {
  path: string;
  staged: string;
  unstaged: string;
  untracked: boolean;
}

function open(spec: RepoSpec): LocalRepo {
  const files = FileArea.fromDescription(spec.area);
  const place = spec.area.places.find((p) => p.guestRoot === spec.placeRoot);
  if (!place) throw new Error(`git: no place is mounted at ${spec.placeRoot}`);
  // The area's own place object: the walk keys its cache by it.
  return { fs: placeFs(files, files.placeOf(spec.placeRoot)), dir: spec.dir, guestPath: spec.guestPath };
}

export async function currentBranch(repo: LocalRepo): Promise<string> {
  return (await git.currentBranch({ fs: repo.fs, dir: repo.dir, fullname: false })) ?? '';
}

/** One task: the operation on a repository rebuilt from its description. */
export async function localGit(input: LocalGitInput): Promise<unknown> {
  const repo = open(input.repo);
  switch (input.op) {
    case 'status':
      return status(repo);
    case 'add':
      for (const filepath of input.relativePaths) await git.add({ fs: repo.fs, dir: repo.dir, filepath });
      return null;
    case 'diff':
      return diff(repo, input.left, input.right);
    case 'commit': {
      const matrix = await git.statusMatrix({ fs: repo.fs, dir: repo.dir });
      const hasHead = await git.resolveRef({ fs: repo.fs, dir: repo.dir, ref: 'HEAD' }).then(() => true, () => false);
      if (!matrix.some(([, head, , stage]) => head !== stage) && hasHead) throw new Error(`git.commit ${repo.guestPath}: nothing is staged; an empty commit is refused`);
      return git.commit({ fs: repo.fs, dir: repo.dir, message: input.message, author: input.author, committer: input.author });
    }
    case 'switchBranch': {
      const matrix = await git.statusMatrix({ fs: repo.fs, dir: repo.dir });
      if (matrix.some(([, head, work, stage]) => !(head === 1 && work === 1 && stage === 1) && !(head === 0 && work === 2 && stage === 0))) {
        throw new Error(`git.switchBranch ${repo.guestPath}: the working tree has changes; commit them first`);
      }
      await git.checkout({ fs: repo.fs, dir: repo.dir, ref: input.branch });
      return null;
    }
  }
}

async function status(repo: LocalRepo): Promise<{ entries: StatusEntry[]; clean: boolean; branch?: string; files: number }> {
  const matrix = await git.statusMatrix({ fs: repo.fs, dir: repo.dir });
  const entries = matrix
    .filter(([, head, work, stage]) => !(head === 1 && work === 1 && stage === 1))
    .map(([filepath, head, work, stage]) => {
      const untracked = head === 0 && stage === 0 && work === 2;
      const staged = head === 0 && stage !== 0 ? 'added' : head === 1 && stage === 0 ? 'deleted' : head === 1 && stage !== 1 ? 'modified' : '';
      const unstaged = untracked ? '' : work === 0 && stage !== 0 ? 'deleted' : work === 2 && stage !== 2 && stage !== 0 ? 'modified' : '';
      return { path: filepath, staged, unstaged, untracked };
    });
  const branch = await currentBranch(repo);
  return { entries, clean: entries.length === 0, ...(branch ? { branch } : {}), files: matrix.length };
}

async function diff(repo: LocalRepo, left: string, right: string): Promise<{ patch: string; binaryPaths: string[] }> {
  const read = async (ref: 'WORKDIR' | 'STAGE' | string, filepath: string): Promise<Buffer | null> => {
    try {
      if (ref === 'WORKDIR') return await readWorkingFile(repo, filepath);
      if (ref === 'STAGE') return Buffer.from((await git.readBlob({ fs: repo.fs, dir: repo.dir, oid: await stagedOid(repo, filepath) })).blob);
      const commit = await git.resolveRef({ fs: repo.fs, dir: repo.dir, ref });
      const { blob } = await git.readBlob({ fs: repo.fs, dir: repo.dir, oid: commit, filepath });
      return Buffer.from(blob);
    } catch {
      return null;
    }
  };
  const matrix = await git.statusMatrix({ fs: repo.fs, dir: repo.dir });
  let patch = '';
  const binaryPaths: string[] = [];
  for (const [filepath] of matrix) {
    const a = await read(left, filepath);
    const b = await read(right, filepath);
    if (a === null && b === null) continue;
    if ((a && a.includes(0)) || (b && b.includes(0))) {
      if (!a || !b || !a.equals(b)) binaryPaths.push(filepath);
      continue;
    }
    const text = unifiedDiffHere({ a: a?.toString('utf8') ?? '', b: b?.toString('utf8') ?? '', from: a ? `a/${filepath}` : '/dev/null', to: b ? `b/${filepath}` : '/dev/null' });
    if (text) patch += text.endsWith('\n') ? text : `${text}\n`;
  }
  return { patch, binaryPaths };
}

/** A working-tree file as git sees it: a link is its target text (as git diffs links), never followed. */
async function readWorkingFile(repo: LocalRepo, filepath: string): Promise<Buffer> {
  const at = path.join(repo.dir, filepath);
  const stat = await repo.fs.lstat(at);
  return Buffer.from(stat.isSymbolicLink() ? await repo.fs.readlink(at) : await repo.fs.readFile(at));
}

async function stagedOid(repo: LocalRepo, filepath: string): Promise<string> {
  const entries = await git.walk({
    fs: repo.fs,
    dir: repo.dir,
    trees: [git.STAGE()],
    map: async (p, [entry]) => (p === filepath && entry ? entry.oid() : undefined),
  });
  const found = (entries as Array<string | undefined>).find((e) => typeof e === 'string');
  if (!found) throw new Error('not staged');
  return found;
}
