// Builds the FileArea of a run from the filled `vfs` of its session (or one-off run) and
// the server's volume declarations: ephemeral directories per run, per-session
// directories, named volumes with subPath and access narrowing, and mounts.
import fs from 'node:fs';
import path from 'node:path';
import { limitDefaults, type Limits, type Settings, type VolumeDeclaration } from '../config';
import type { FilledVfs, VolumeAccess } from '../blueprints';
import { FileArea, FileAreaError, type Place, type TokenBudget } from './file-area';
import { removeTree } from './remove-tree';
import { DiskUsage } from './usage';

const EPHEMERAL_PREFIX = 'svc-ephemeral-';
/** Where a finished run's directory waits while its contents go. */
const REMOVING_PREFIX = 'svc-removing-';

/** Is the server process that made an ephemeral root still running? */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export class FileAreas {
  /** Made on first use (see ephemeralRoot()). */
  private ephemeralDir: string | null = null;
  /** Made on first use (see removeLater()). */
  private removingDir: string | null = null;
  private readonly volumes: Map<string, VolumeDeclaration>;
  /** Remembered bytes in use per place root, shared by every run's area (src/vfs/usage.ts). */
  private readonly disk = new DiskUsage();
  /** Bytes of an ephemeral area whose Blueprint sets no size_limit. */
  private readonly ephemeralSizeLimit: number;

  /** Bytes of a per_session area whose Blueprint sets no size_limit, or null for none. */
  private readonly sessionSizeLimit: number | null;
  /** Bytes of all per_session areas of one token's sessions, or null for none. */
  private readonly tokenDiskLimit: number | null;
  /** Per_session directories and the token whose session each is, learned as runs open them. */
  private readonly owners = new Map<string, string>();

  constructor(private readonly settings: Pick<Settings, 'paths' | 'volumes'> & { limits?: Partial<Pick<Limits, 'max_ephemeral_vfs_size' | 'max_session_vfs_size' | 'max_token_disk'>> }) {
    this.volumes = new Map(settings.volumes.map((v) => [v.name, v]));
    this.ephemeralSizeLimit = (settings.limits?.max_ephemeral_vfs_size ?? limitDefaults.max_ephemeral_vfs_size) * 1024 * 1024;
    const megabytes = (value: number) => (value === 0 ? null : value * 1024 * 1024);
    this.sessionSizeLimit = megabytes(settings.limits?.max_session_vfs_size ?? limitDefaults.max_session_vfs_size);
    this.tokenDiskLimit = megabytes(settings.limits?.max_token_disk ?? limitDefaults.max_token_disk);
  }

  /** The budget of `principal` over its sessions' per_session areas (null: no limit). */
  private tokenBudget(principal: string | undefined): TokenBudget | null {
    const limit = this.tokenDiskLimit;
    if (limit === null || principal === undefined) return null;
    return {
      limit,
      inUse: async () => {
        let total = 0;
        for (const [dir, owner] of [...this.owners]) {
          if (owner !== principal) continue;
          if (!fs.existsSync(dir)) {
            this.owners.delete(dir); // the session ended
            continue;
          }
          total += await this.disk.of(dir);
        }
        return total;
      },
    };
  }

  /**
   * At start: the per_session areas of the sessions an earlier server left open count
   * against their tokens' disk budgets from the first write, not only areas opened since
   * (a restart must not reset a token's use). Their sizes are measured in the background,
   * one area after the other, asynchronously; a budget check meanwhile waits for the
   * measurement of its token's areas (DiskUsage shares one walk per directory), so no
   * refusal is decided on a partial figure.
   */
  countExisting(areas: Iterable<{ sessionId: string; owner: string }>): void {
    if (this.tokenDiskLimit === null) return;
    const dirs: string[] = [];
    for (const { sessionId, owner } of areas) {
      const dir = path.join(this.settings.paths.vfsSessionDir, sessionId);
      if (this.owners.has(dir)) continue;
      this.owners.set(dir, owner);
      dirs.push(dir);
    }
    void (async () => {
      for (const dir of dirs) await this.disk.of(dir).catch(() => 0);
    })();
  }

  /**
   * A private subdirectory of the (possibly shared) temp directory, removed at exit: made
   * with a random name and mode 0700 (mkdtemp), never a fixed name someone else could
   * create first, as a directory they own or a link leading elsewhere.
   */
  private ephemeralRoot(): string {
    if (this.ephemeralDir === null) {
      fs.mkdirSync(this.settings.paths.vfsEphemeralDir, { recursive: true });
      this.ephemeralDir = fs.mkdtempSync(path.join(this.settings.paths.vfsEphemeralDir, `${EPHEMERAL_PREFIX}${process.pid}-`));
    }
    return this.ephemeralDir;
  }

  /**
   * A finished run's directory leaves its place at once (one rename into this server's
   * removing directory) and its contents go asynchronously, off the event loop, whatever
   * their size; what a crash leaves is swept at the next start.
   */
  private removeLater(dir: string): void {
    let aside = dir;
    try {
      if (this.removingDir === null) {
        fs.mkdirSync(this.settings.paths.vfsEphemeralDir, { recursive: true });
        this.removingDir = fs.mkdtempSync(path.join(this.settings.paths.vfsEphemeralDir, `${REMOVING_PREFIX}${process.pid}-`));
      }
      aside = path.join(this.removingDir, path.basename(dir));
      fs.renameSync(dir, aside);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT' && aside !== dir) return; // nothing was written
      aside = dir; // another file system: removed in place
    }
    removeTree(aside).catch(() => undefined);
  }

  private volumePlace(guestRoot: string, name: string, subPath: string | undefined, access: VolumeAccess | undefined): Place {
    const volume = this.volumes.get(name);
    if (!volume) throw new FileAreaError(`the volume '${name}' is not declared on this server`);
    // The server's current declaration narrows again at each run.
    const effective: VolumeAccess = volume.access === 'read_only' ? 'read_only' : (access ?? volume.access);
    const hostRoot = subPath ? path.join(volume.directory, ...subPath.split('/')) : volume.directory;
    return {
      guestRoot,
      anchor: volume.directory,
      hostRoot,
      access: effective,
      sizeLimit: volume.sizeLimit === 'unlimited' ? null : volume.sizeLimit,
      limitSetting: `the volume '${name}' declaration`,
      volume: name,
      create: volume.kind === 'managed-local' && effective === 'read_write',
    };
  }

  /**
   * The file area of one run. `sessionId` names the per_session directory; ephemeral
   * areas get a fresh directory named by `runId`, removed by `release()`.
   */
  open(vfs: FilledVfs, ids: { sessionId: string; runId: string; principal?: string }, options: { throwaway?: boolean } = {}): FileArea {
    const area = this.build(vfs, ids, options);
    area.prepareCwd();
    return area;
  }

  private build(vfs: FilledVfs, ids: { sessionId: string; runId: string; principal?: string }, options: { throwaway?: boolean }): FileArea {
    const mounts = Object.entries(vfs.mounts ?? {}).map(([guestPath, m]) => this.volumePlace(guestPath, m.volume, m.subPath, m.access));
    const limit = vfs.size_limit ?? null;
    switch (vfs.mode) {
      case 'none':
        return new FileArea('none', '/', []);
      case 'ephemeral': {
        const dir = path.join(this.ephemeralRoot(), ids.runId);
        // Without its own size_limit an ephemeral area gets the server's default: a run's
        // scratch space is not an unbounded claim on the server's disk.
        const root: Place = { guestRoot: '/', anchor: dir, hostRoot: dir, access: 'read_write', sizeLimit: limit ?? this.ephemeralSizeLimit, limitSetting: limit === null ? 'max_ephemeral_vfs_size' : 'vfs.size_limit', volume: '', create: true };
        // Created on first use: most runs never touch a file, and even asking the disk
        // whether the directory exists costs more than the rest of a run's clean-up.
        return new FileArea(
          'ephemeral',
          vfs.cwd,
          [root, ...mounts],
          (touched) => {
            this.disk.forget(dir);
            if (touched) this.removeLater(dir);
          },
          this.disk,
        );
      }
      case 'per_session': {
        const dir = path.join(this.settings.paths.vfsSessionDir, ids.sessionId);
        // Without its own size_limit a session's area gets the server's (generous) default.
        const root: Place = { guestRoot: '/', anchor: dir, hostRoot: dir, access: 'read_write', sizeLimit: limit ?? this.sessionSizeLimit, limitSetting: limit === null ? 'max_session_vfs_size' : 'vfs.size_limit', volume: '', create: true };
        if (ids.principal !== undefined && !options.throwaway) this.owners.set(dir, ids.principal);
        // A one-off run's throw-away session takes its directory with it.
        const release = () => {
          this.disk.forget(dir);
          this.removeLater(dir);
        };
        return new FileArea('per_session', vfs.cwd, [root, ...mounts], options.throwaway ? release : null, this.disk, options.throwaway ? null : this.tokenBudget(ids.principal));
      }
      case 'named':
        return new FileArea('named', vfs.cwd, [this.volumePlace('/', vfs.volume ?? '', vfs.subPath, vfs.access), ...mounts], null, this.disk);
    }
  }

  /** At exit: the private ephemeral directory goes (what cannot is swept at the next start). */
  close(): void {
    for (const dir of [this.ephemeralDir, this.removingDir]) {
      try {
        if (dir !== null) fs.rmSync(dir, { recursive: true, force: true });
      } catch {
        // sweepLeftovers at the next start
      }
    }
    this.ephemeralDir = null;
    this.removingDir = null;
  }

  /**
   * At start: ephemeral roots of servers that are no longer running (a crash, a kill, a tree
   * an older server could not delete) go, asynchronously. Roots of running servers that
   * share the temp directory are left alone.
   */
  async sweepLeftovers(): Promise<void> {
    let names: string[];
    try {
      names = await fs.promises.readdir(this.settings.paths.vfsEphemeralDir);
    } catch {
      return;
    }
    for (const name of names) {
      const pid = Number(/^svc-(?:ephemeral|removing)-(\d+)-/.exec(name)?.[1] ?? NaN);
      if (!Number.isInteger(pid) || pid === process.pid || alive(pid)) continue;
      await removeTree(path.join(this.settings.paths.vfsEphemeralDir, name)).catch(() => undefined);
    }
  }
}
