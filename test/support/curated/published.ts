// The curated Packages as the real `svc build test --publish-local` tests and publishes
// them, once per change instead of once per test file: one CLI run builds the whole
// packages/ project, runs every Package's tests and readme examples, and installs the
// tested build into a cache under dist/, keyed by a hash of everything the output depends on
// (the command, the Packages' sources, the built CLI, the locked dependencies, node's
// version); its printed report is kept beside the tree for curated-build to read, so the
// Packages are built once for both. The curated tests' server home gets a copy of the
// whole tree (for one Package it is the tree `publish-local -p <name>` writes). Test
// processes that start at once publish once: one takes a lock, the others wait for the
// published tree to appear.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { repoRoot } from '../../harness';
import { runSvc } from '../cli';
import { eventually } from '../wait';

/** The curated Package project (packages/svc.toml). */
export const curatedRoot = path.join(repoRoot, 'packages');

const cacheRoot = path.join(repoRoot, 'dist', 'test-cache', 'curated');

/** Every file under `dir` (sorted, relative to the repository) that `keep` accepts. */
function filesUnder(dir: string, keep: (relative: string, isDirectory: boolean) => boolean): string[] {
  const out: string[] = [];
  const walk = (current: string) => {
    for (const entry of fs.readdirSync(current, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const full = path.join(current, entry.name);
      const relative = path.relative(repoRoot, full);
      if (!keep(relative, entry.isDirectory())) continue;
      if (entry.isDirectory()) walk(full);
      else if (entry.isFile()) out.push(relative);
    }
  };
  walk(dir);
  return out;
}

/** The one command that tests and publishes the project (network tests need the real services). */
const testAndPublish = ['build', 'test', '--skip-network', '--deny-warnings', '--publish-local'];

/** What `testAndPublish` printed, kept in the published tree's directory. */
const reportFile = 'build-test.txt';

/** What the published tree depends on, hashed. */
function cacheKey(): string {
  // The build's own outputs in packages/ (derived capabilities.yaml, .svc/) are left out: publishing rewrites them.
  const sources = filesUnder(curatedRoot, (relative, isDirectory) => !(isDirectory && path.basename(relative) === '.svc') && path.basename(relative) !== 'capabilities.yaml');
  const distRoot = path.join(repoRoot, 'dist');
  const build = filesUnder(distRoot, (relative, isDirectory) => {
    const inDist = path.relative('dist', relative);
    if (isDirectory) return inDist !== 'tests' && inDist !== 'test-cache';
    // The test runner's own records (times, the last run's timeline) are no build output.
    return !relative.endsWith('.map') && inDist !== 'test-times.json' && inDist !== 'test-timeline.json';
  });
  const hash = createHash('sha256').update(`${process.version}\0${testAndPublish.join(' ')}\0`);
  for (const file of [...sources, ...build, path.join('bin', 'svc'), 'package-lock.json']) {
    hash.update(`${file}\0`).update(fs.readFileSync(path.join(repoRoot, file))).update('\0');
  }
  return hash.digest('hex');
}

/** Creates `lock` holding this process's id; false when another process holds it. */
function takeLock(lock: string): boolean {
  const mine = `${lock}.${process.pid}`;
  fs.writeFileSync(mine, String(process.pid));
  try {
    fs.linkSync(mine, lock);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    fs.rmSync(mine, { force: true });
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Whether a live process holds `lock` (one left by a process that died is removed). */
function lockHeld(lock: string): boolean {
  let holder: number;
  try {
    holder = Number(fs.readFileSync(lock, 'utf8'));
  } catch {
    return false;
  }
  if (isAlive(holder)) return true;
  fs.rmSync(lock, { force: true });
  return false;
}

/** One real `svc build test --publish-local` of the whole project into `store`, written beside it and renamed into place. */
async function publishInto(store: string, key: string): Promise<void> {
  const home = `${store}.tmp-${process.pid}`;
  fs.rmSync(home, { recursive: true, force: true });
  try {
    const published = await runSvc(testAndPublish, { cwd: curatedRoot, env: { SVC_HOME: home } });
    const output = published.stdout + published.stderr;
    // A failing test or a warning publishes nothing: every curated test file fails with the report.
    assert.equal(published.code, 0, `svc ${testAndPublish.join(' ')} of the curated Packages failed:\n${output}`);
    fs.writeFileSync(path.join(home, reportFile), output);
    try {
      fs.renameSync(home, store);
    } catch (error) {
      // Another process published the same tree (it found this one's lock stale): theirs is as good.
      if (!fs.existsSync(store)) throw error;
    }
  } finally {
    fs.rmSync(home, { recursive: true, force: true });
  }
  // Trees of earlier sources or builds are not read again; half-written ones of processes that died are dropped.
  for (const name of fs.readdirSync(cacheRoot)) {
    const writer = Number(/^[0-9a-f]{64}\.tmp-(\d+)$/.exec(name)?.[1]);
    const stale = /^[0-9a-f]{64}$/.test(name) ? name !== key : writer > 0 && !isAlive(writer);
    if (stale) fs.rmSync(path.join(cacheRoot, name), { recursive: true, force: true });
  }
}

let published: Promise<string> | undefined;

/** The package store (`<home>/packages`) holding every curated Package, tested and published at most once per change. */
export function publishedCurated(): Promise<string> {
  published ??= (async () => {
    const key = cacheKey();
    const store = path.join(cacheRoot, key);
    const lock = `${store}.lock`;
    fs.mkdirSync(cacheRoot, { recursive: true });
    for (;;) {
      if (fs.existsSync(store)) return path.join(store, 'packages');
      if (takeLock(lock)) {
        try {
          if (!fs.existsSync(store)) await publishInto(store, key);
        } finally {
          fs.rmSync(lock, { force: true });
        }
      } else {
        await eventually('the curated Packages another test file publishes', () => fs.existsSync(store) || !lockHeld(lock), { attempts: 3_000 });
      }
    }
  })();
  return published;
}

/** What the `svc build test --publish-local` that made the published tree printed (it exited 0). */
export async function curatedTestReport(): Promise<string> {
  const store = path.dirname(await publishedCurated());
  return fs.readFileSync(path.join(store, reportFile), 'utf8');
}
