// A run's file area: the program's `/` (an ephemeral directory, the session's directory
// or a named volume) plus named-volume mounts. Resolves guest paths to host paths beneath
// the place's root without passing through a symbolic link (src/vfs/beneath.ts), knows
// each place's access and size limit, and never lets a host path reach a message.
import fs from 'node:fs';
import path from 'node:path';
import type { VfsMode, VolumeAccess } from '../blueprints';
import { beneath, FileAreaError, type FinalLink, type Located } from './beneath';
import { measureTree, type DiskUsage } from './usage';

export interface Place {
  /** Guest path of this place's root: `/` or a mount point. */
  guestRoot: string;
  /** The directory the server itself chose (volume directory, run or session directory). */
  anchor: string;
  /** `anchor` or a subPath below it; the subPath is walked like any guest path. */
  hostRoot: string;
  access: VolumeAccess;
  /** Bytes, or null for no limit. */
  sizeLimit: number | null;
  /** Where the limit comes from, for refusals: a server setting, the Blueprint's vfs.size_limit or the volume's declaration. */
  limitSetting?: string;
  volume: string;
  /** Created on first use (managed volumes, ephemeral areas). */
  create: boolean;
}

/** A token's disk budget over all its sessions' per_session areas (max_token_disk). */
export interface TokenBudget {
  /** Bytes. */
  limit: number;
  /** Bytes the token's sessions' areas hold now (measured off the event loop). */
  inUse(): Promise<number>;
}

export interface Resolved extends Located {
  guestPath: string;
  place: Place;
}

export { FileAreaError };

/**
 * Levels a path may reach below its place's root. Deeper trees could not be walked, sized
 * or removed by path (the kernel refuses paths past PATH_MAX), so they are never created.
 */
export const MAX_PATH_DEPTH = 64;
/** Bytes of a path below its place's root; with the server's own prefix it stays under PATH_MAX. */
export const MAX_PATH_BYTES = 2048;

/** Refuses components deeper or longer than a file area allows. */
function requireBounded(components: readonly string[]): void {
  if (components.length > MAX_PATH_DEPTH) throw new FileAreaError(`the path is ${components.length} levels deep; a file area allows at most ${MAX_PATH_DEPTH} levels below its root`);
  const bytes = components.reduce((sum, c) => sum + Buffer.byteLength(c) + 1, 0);
  if (bytes > MAX_PATH_BYTES) throw new FileAreaError(`the path is ${bytes} bytes long; a file area allows at most ${MAX_PATH_BYTES} bytes below its root`);
}

/** A file area as plain data, to rebuild it in a worker thread (no release hook travels). */
export interface AreaDescription {
  mode: VfsMode;
  cwd: string;
  places: Place[];
}

// Guest paths arrive normalised by the policy's normaliser (src/policy/normalize.ts).

function guestJoin(guestRoot: string, components: readonly string[]): string {
  const tail = components.join('/');
  return guestRoot === '/' ? `/${tail}` : tail === '' ? guestRoot : `${guestRoot}/${tail}`;
}

export class FileArea {
  private released = false;
  /** A directory of this area was created (or found) on disk during the run. */
  private touched = false;
  /** Real path of each place's root, asked once per run. */
  private readonly realRoots = new Map<Place, string>();

  constructor(
    readonly mode: VfsMode,
    readonly cwd: string,
    /** Root place first, then mounts (longest guest path first). */
    private readonly places: Place[],
    /** Removes an ephemeral directory at the end of the run; told whether the run touched the disk. */
    private readonly onRelease: ((touched: boolean) => void) | null = null,
    /** The server's remembered usage figures (none in a worker thread: measured each time). */
    private readonly disk: DiskUsage | null = null,
    /** The disk budget of the token whose session this is (per_session areas only). */
    readonly tokenBudget: TokenBudget | null = null,
  ) {
    this.places.sort((a, b) => b.guestRoot.length - a.guestRoot.length);
  }

  /** This area as plain data (see AreaDescription). */
  describe(): AreaDescription {
    return { mode: this.mode, cwd: this.cwd, places: this.places.map((p) => ({ ...p })) };
  }

  /** The same area in another thread: same places, same walks, no release hook. */
  static fromDescription(description: AreaDescription): FileArea {
    return new FileArea(description.mode, description.cwd, description.places.map((p) => ({ ...p })));
  }

  get root(): Place | undefined {
    return this.places.find((p) => p.guestRoot === '/');
  }

  mounts(): Place[] {
    return this.places.filter((p) => p.guestRoot !== '/').sort((a, b) => (a.guestRoot < b.guestRoot ? -1 : 1));
  }

  /** The place a normalised guest path belongs to. */
  placeOf(guestPath: string): Place {
    const place = this.places.find((p) => p.guestRoot === '/' || guestPath === p.guestRoot || guestPath.startsWith(`${p.guestRoot}/`));
    if (!place) throw new FileAreaError('no file system is mounted there');
    return place;
  }

  /** Is this guest path a mount point (or `/`)? Those cannot be removed or replaced. */
  isMountPoint(guestPath: string): boolean {
    return this.places.some((p) => p.guestRoot === guestPath);
  }

  /**
   * The host path of a normalised guest path. No component may be a symbolic link; with
   * `finalLink: 'itself'` the last one may, for operations that never follow it (stat,
   * list, remove, rename).
   */
  resolve(guestPath: string, finalLink: FinalLink = 'refuse'): Resolved {
    const place = this.placeOf(guestPath);
    const { root, real } = this.rootOf(place);
    const relative = place.guestRoot === '/' ? guestPath.slice(1) : guestPath.slice(place.guestRoot.length + 1);
    const components = relative === '' ? [] : relative.split('/');
    requireBounded(components);
    const hostPath = beneath(root, components, (i) => guestJoin(place.guestRoot, components.slice(0, i + 1)), finalLink);
    return { guestPath, hostPath, place, root: real };
  }

  /**
   * The same walk for a host path some library composed (isomorphic-git joins its own
   * paths): refused unless it lies lexically beneath the place's root.
   */
  resolveHost(place: Place, hostPath: string, finalLink: FinalLink = 'refuse'): Located {
    const { root, real } = this.rootOf(place);
    const relative = path.relative(root, path.resolve(hostPath));
    if (relative === '..' || relative.startsWith(`..${path.sep}`) || path.isAbsolute(relative)) throw new FileAreaError('the path leads outside the file area');
    const components = relative === '' ? [] : relative.split(path.sep);
    requireBounded(components);
    return { hostPath: beneath(root, components, (i) => guestJoin(place.guestRoot, components.slice(0, i + 1)), finalLink), root: real };
  }

  /** The place's root directory, its subPath walked without links, created when it should be. */
  private rootOf(place: Place): { root: string; real: string } {
    const below = path.relative(place.anchor, place.hostRoot);
    const components = below === '' ? [] : below.split(path.sep);
    const root = beneath(place.anchor, components, (i) => `the subPath ${components.slice(0, i + 1).join('/')} of the volume '${place.volume || 'file area'}'`);
    if (place.create) {
      fs.mkdirSync(root, { recursive: true, mode: 0o700 });
      this.touched = true;
    }
    let real = this.realRoots.get(place);
    if (real === undefined) {
      try {
        real = fs.realpathSync(root);
      } catch {
        throw new FileAreaError(`the volume '${place.volume || 'file area'}' is not available on this server`);
      }
      this.realRoots.set(place, real);
    }
    return { root, real };
  }

  /** Levels a normalised guest path lies below its place's root. */
  depthOf(guestPath: string): number {
    const place = this.placeOf(guestPath);
    const relative = place.guestRoot === '/' ? guestPath.slice(1) : guestPath.slice(place.guestRoot.length + 1);
    return relative === '' ? 0 : relative.split('/').length;
  }

  /** Bytes in use under a place (files only, links not followed), measured off the event loop. */
  usage(place: Place): Promise<number> {
    return this.disk ? this.disk.of(place.hostRoot) : measureTree(place.hostRoot);
  }

  /** Bytes of the files under one directory of the area (a tree about to be copied or moved). */
  treeBytes(hostPath: string): Promise<number> {
    return measureTree(hostPath);
  }

  /** svc wrote `delta` bytes more (or fewer) under the place: the remembered figure follows. */
  recordWrite(place: Place, delta: number): void {
    this.disk?.add(place.hostRoot, delta);
  }

  /** Work svc does not count byte by byte (git) changed the place: the next check measures again. */
  invalidate(place: Place): void {
    this.disk?.forget(place.hostRoot);
  }

  /** Creates a missing working directory when its place is writable. */
  prepareCwd(): void {
    if (this.mode === 'none' || this.cwd === '/') return;
    try {
      const { hostPath, place } = this.resolve(this.cwd);
      if (place.access === 'read_write') fs.mkdirSync(hostPath, { recursive: true, mode: 0o700 });
    } catch {
      // A read-only or unavailable place: the first file operation reports it by guest path.
    }
  }

  /** Called once when the run ends. */
  release(): void {
    if (this.released) return;
    this.released = true;
    this.onRelease?.(this.touched);
  }
}
