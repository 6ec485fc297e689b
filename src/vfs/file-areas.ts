// Builds the FileArea of a run from the filled `vfs` of its session (or one-off run) and
// the server's volume declarations: ephemeral directories per run, per-session
// directories, named volumes with subPath and access narrowing, and mounts.
import fs from 'node:fs';
import path from 'node:path';
import { limitDefaults, type Limits, type Settings, type VolumeDeclaration } from '../config';
import type { FilledVfs, VolumeAccess } from '../blueprints';
import { FileArea, FileAreaError, type Place } from './file-area';
import { removeTree } from './remove-tree';

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
  /** Bytes of an ephemeral area whose Blueprint sets no size_limit. */
  private readonly ephemeralSizeLimit: number;

  constructor(private readonly settings: Pick<Settings, 'paths' | 'volumes'> & { limits?: Pick<Limits, 'max_ephemeral_vfs_size'> }) {
    this.volumes = new Map(settings.volumes.map((v) => [v.name, v]));
    this.ephemeralSizeLimit = (settings.limits?.max_ephemeral_vfs_size ?? limitDefaults.max_ephemeral_vfs_size) * 1024 * 1024;
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
      volume: name,
      create: volume.kind === 'managed-local' && effective === 'read_write',
    };
  }

  /**
   * The file area of one run. `sessionId` names the per_session directory; ephemeral
   * areas get a fresh directory named by `runId`, removed by `release()`.
   */
  open(vfs: FilledVfs, ids: { sessionId: string; runId: string }, options: { throwaway?: boolean } = {}): FileArea {
    const area = this.build(vfs, ids, options);
    area.prepareCwd();
    return area;
  }

  private build(vfs: FilledVfs, ids: { sessionId: string; runId: string }, options: { throwaway?: boolean }): FileArea {
    const mounts = Object.entries(vfs.mounts ?? {}).map(([guestPath, m]) => this.volumePlace(guestPath, m.volume, m.subPath, m.access));
    const limit = vfs.size_limit ?? null;
    switch (vfs.mode) {
      case 'none':
        return new FileArea('none', '/', []);
      case 'ephemeral': {
        const dir = path.join(this.ephemeralRoot(), ids.runId);
        // Without its own size_limit an ephemeral area gets the server's default: a run's
        // scratch space is not an unbounded claim on the server's disk.
        const root: Place = { guestRoot: '/', anchor: dir, hostRoot: dir, access: 'read_write', sizeLimit: limit ?? this.ephemeralSizeLimit, volume: '', create: true };
        // Created on first use: most runs never touch a file, and even asking the disk
        // whether the directory exists costs more than the rest of a run's clean-up.
        return new FileArea('ephemeral', vfs.cwd, [root, ...mounts], (touched) => {
          if (touched) this.removeLater(dir);
        });
      }
      case 'per_session': {
        const dir = path.join(this.settings.paths.vfsSessionDir, ids.sessionId);
        const root: Place = { guestRoot: '/', anchor: dir, hostRoot: dir, access: 'read_write', sizeLimit: limit, volume: '', create: true };
        // A one-off run's throw-away session takes its directory with it.
        return new FileArea('per_session', vfs.cwd, [root, ...mounts], options.throwaway ? () => this.removeLater(dir) : null);
      }
      case 'named':
        return new FileArea('named', vfs.cwd, [this.volumePlace('/', vfs.volume ?? '', vfs.subPath, vfs.access), ...mounts]);
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
