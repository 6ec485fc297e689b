// Host-side state of a run's multi-step operations (a writer opened now and committed
// later), in the manner of Deno's resource ids: the guest holds only a number; what was
// checked (the normalised path, the access) stays here and is looked up again on use.
// Handles die with the run and are never valid in another.

export class ResourceError extends TypeError {}

/** At most this many writers (and future iterators) open at once per run. */
export const MAX_OPEN_RESOURCES = 64;

interface Entry {
  kind: string;
  value: unknown;
}

export class RunResources {
  private readonly open = new Map<number, Entry>();
  private next = 1;

  /** Registers state under a fresh handle; RangeError beyond the per-run limit. */
  add(kind: string, value: unknown, what: string): number {
    if (this.open.size >= MAX_OPEN_RESOURCES) throw new RangeError(`${what}: at most ${MAX_OPEN_RESOURCES} writers may be open at once in a run; close some first`);
    const handle = this.next++;
    this.open.set(handle, { kind, value });
    return handle;
  }

  /** The state behind a handle of this kind; a ResourceError for anything else. */
  get<T>(kind: string, handle: unknown, what: string): T {
    const entry = typeof handle === 'number' ? this.open.get(handle) : undefined;
    if (!entry || entry.kind !== kind) throw new ResourceError(`${what}: the ${kind} is closed or was never opened in this run`);
    return entry.value as T;
  }

  /** Removes a handle (used once: a closed writer cannot commit again). */
  take<T>(kind: string, handle: unknown, what: string): T {
    const value = this.get<T>(kind, handle, what);
    this.open.delete(handle as number);
    return value;
  }

  get size(): number {
    return this.open.size;
  }

  /** The run ended: every handle goes. */
  clear(): void {
    this.open.clear();
  }
}
