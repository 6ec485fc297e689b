// The file area as `svc:fs` and the modules built on it (`svc:code`, `svc:git`, `svc:http`
// downloads) use it: the run's area, checked paths, host errors turned into guest messages,
// the read-only and size-limit checks, and the atomic write.
import fs from 'node:fs';
import path from 'node:path';
import { ContextError, normalizeVfsPath, PermissionDeniedError, QuotaExceededError } from '../../policy';
import { createExclusive, createExclusiveAsync, FileAreaError, readNoFollow, type FileArea, type Located, type Place } from '../../vfs';
import type { AllowedGate, HostCall, RunContext } from '../types';

export const MAX_READ_SIZE = 52_428_800;

export function area(call: RunContext, fn: string): FileArea {
  const files = call.services.files;
  if (!files || files.mode === 'none') throw new Error(`fs.${fn}: the file system is disabled for this Blueprint (vfs: none)`);
  return files;
}

/**
 * A guest path normalised by the policy's normaliser (the one the gate uses), for
 * operations no capability governs; gated ones take the path from their allowed context.
 */
export function guest(files: FileArea, raw: string, fn: string): string {
  try {
    return normalizeVfsPath(raw, files.cwd, `fs.${fn}`, 'path');
  } catch (error) {
    if (error instanceof ContextError) throw new Error(`fs.${fn} ${raw}: the path climbs above /`);
    throw error;
  }
}

/** A path field of an allowed gate's context: normalised by the policy, never the guest's text. */
export function allowedPath(allowed: readonly AllowedGate[], field = 'path', index = 0): string {
  const value = allowed[index]?.context[field];
  if (typeof value !== 'string') throw new Error(`internal: the allowed context has no ${field}`);
  return value;
}

const reasons: Record<string, string> = {
  ENOENT: 'no such file or directory',
  EEXIST: 'already exists',
  ENOTDIR: 'a parent is not a directory',
  EISDIR: 'is a directory',
  ENOTEMPTY: 'the directory is not empty; pass recursive: true to remove it with its contents',
  EACCES: 'permission denied by the host file system',
  EPERM: 'operation not permitted',
  // O_NOFOLLOW met a link at the last step.
  ELOOP: 'is a symbolic link; file operations never follow links',
};

/** Runs host file work; turns host errors into `fs.<fn> <guest path>: <reason>`. */
export function hostWork<T>(fn: string, guestPath: string, work: () => T): T {
  try {
    return work();
  } catch (error) {
    throw guestError(fn, guestPath, error);
  }
}

/** hostWork for asynchronous work (removals, anything off the event loop). */
export async function hostWorkAsync<T>(fn: string, guestPath: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw guestError(fn, guestPath, error);
  }
}

function guestError(fn: string, guestPath: string, error: unknown): Error {
  if (error instanceof FileAreaError) return new Error(`fs.${fn} ${guestPath}: ${error.message}`);
  if (error instanceof PermissionDeniedError || error instanceof QuotaExceededError) return error;
  const code = (error as NodeJS.ErrnoException).code ?? '';
  return new Error(`fs.${fn} ${guestPath}: ${reasons[code] ?? 'the operation failed'}`);
}

export function requireWritable(call: HostCall, place: Place, capability: string, context: Record<string, unknown>, guestPath: string): void {
  if (place.access === 'read_write') return;
  const error = new PermissionDeniedError(call.caller, capability, `${guestPath} is in the volume mounted read-only at ${place.guestRoot}`, 'read_only');
  throw call.refuse(capability, context, 'read_only', error);
}

/**
 * Refuses a write past the place's size limit or past the token's disk budget (a session's
 * own area only); the usage is measured off the event loop (src/vfs/usage.ts). A refusal
 * names the limit, where it is set and the bytes in use.
 */
export async function requireRoom(call: HostCall, files: FileArea, place: Place, fn: string, guestPath: string, adding: number, replacing: number, context: Record<string, unknown>): Promise<void> {
  const needed = adding - replacing;
  if (place.sizeLimit !== null) {
    const inUse = await files.usage(place);
    if (inUse + needed > place.sizeLimit) {
      const setting = place.limitSetting && place.limitSetting !== 'vfs.size_limit' ? ` (set by ${place.limitSetting})` : '';
      const error = new QuotaExceededError(
        `fs.${fn} ${guestPath}: the filesystem's size limit of ${place.sizeLimit} bytes${setting} would be exceeded: ${inUse} bytes are in use and this needs ${Math.max(0, needed)} more`,
      );
      throw call.refuse('fs.write', context, 'quota', error);
    }
  }
  const budget = place.guestRoot === '/' && files.mode === 'per_session' ? files.tokenBudget : null;
  if (budget && needed > 0) {
    const inUse = await budget.inUse();
    if (inUse + needed > budget.limit) {
      const error = new QuotaExceededError(
        `fs.${fn} ${guestPath}: the token's disk budget of ${budget.limit} bytes (set by max_token_disk) would be exceeded: its sessions' file areas hold ${inUse} bytes and this needs ${needed} more`,
      );
      throw call.refuse('fs.write', context, 'quota', error);
    }
  }
}

export function existingSize(hostPath: string): number {
  try {
    const stat = fs.lstatSync(hostPath);
    return stat.isFile() ? stat.size : 0;
  } catch {
    return 0;
  }
}

/** Temporary file (created exclusively, so never through a link) renamed over the target; rename replaces a link, never follows it. */
export function atomicWrite(at: Located, content: Buffer): void {
  const temporary = path.join(path.dirname(at.hostPath), `${TEMPORARY_PREFIX}${process.pid}-${Date.now()}-${Math.random().toString(36).slice(2)}`);
  createExclusive({ hostPath: temporary, root: at.root }, content);
  try {
    fs.renameSync(temporary, at.hostPath);
  } catch (error) {
    fs.rmSync(temporary, { force: true });
    throw error;
  }
}

/** atomicWrite with the bytes written asynchronously (tens of MB never in one call on the event loop). */
export async function atomicWriteAsync(at: Located, content: Buffer): Promise<void> {
  const temporary = path.join(path.dirname(at.hostPath), `${TEMPORARY_PREFIX}${process.pid}-${Date.now()}-${Math.random().toString(36).slice(2)}`);
  await createExclusiveAsync({ hostPath: temporary, root: at.root }, content);
  try {
    fs.renameSync(temporary, at.hostPath);
  } catch (error) {
    fs.rmSync(temporary, { force: true });
    throw error;
  }
}

/** Names of an atomic write's temporary files, which listings and walks never show. */
export const TEMPORARY_PREFIX = '.svc-write-';

/**
 * Copies a file (replacing a file at `to` atomically) or a directory tree into a new
 * directory. Links are neither followed nor copied: the caller refuses a tree holding one
 * (`linkInside`) before anything is written.
 */
export function copyTree(source: Located, target: Located): void {
  const from = source.hostPath;
  const to = target.hostPath;
  const stat = fs.lstatSync(from);
  if (stat.isDirectory()) {
    fs.mkdirSync(to, { recursive: true, mode: 0o700 });
    const copyInto = (fromDir: string, toDir: string) => {
      for (const entry of fs.readdirSync(fromDir, { withFileTypes: true })) {
        const s = path.join(fromDir, entry.name);
        const t = path.join(toDir, entry.name);
        if (entry.isDirectory()) {
          fs.mkdirSync(t, { mode: 0o700 });
          copyInto(s, t);
        } else if (entry.isFile()) createExclusive({ hostPath: t, root: target.root }, readNoFollow({ hostPath: s, root: source.root }));
        else throw Object.assign(new Error('not a plain file'), { code: entry.isSymbolicLink() ? 'ELOOP' : 'EPERM' });
      }
    };
    copyInto(from, to);
  } else if (stat.isFile()) atomicWrite(target, readNoFollow(source));
  else throw Object.assign(new Error('not a plain file'), { code: stat.isSymbolicLink() ? 'ELOOP' : 'EPERM' });
}
