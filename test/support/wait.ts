// Waiting for something the server does on its own (a record it writes, a process it
// replaces): poll a probe a bounded number of times instead of sleeping a fixed time, so a
// fast machine does not wait and a loaded one does not fail early.
import { setTimeout as sleep } from 'node:timers/promises';

export interface PollOptions {
  /** Probes before giving up (default 600: a minute at the default interval). */
  attempts?: number;
  /** Pause between probes in ms (default 100). */
  intervalMs?: number;
}

/** Resolves with the probe's first truthy value; fails naming `what` after the last attempt. */
export async function eventually<T>(what: string, probe: () => T | undefined | null | false | Promise<T | undefined | null | false>, options: PollOptions = {}): Promise<T> {
  const attempts = options.attempts ?? 600;
  for (let attempt = 1; ; attempt++) {
    const value = await probe();
    if (value) return value;
    if (attempt >= attempts) throw new Error(`gave up waiting for ${what} after ${attempts} attempts`);
    await sleep(options.intervalMs ?? 100);
  }
}
