// The declaration sets a checker thread holds, kept alike on both ends of its port: the pool
// names a set the thread holds by its hash alone, so the module texts (21 KB for svc's own
// modules, megabytes with large Packages) are not copied to the thread with every batch (a
// structured copy each way cost 35 us per batch for svc's own: bench/PROFILE.md). The pool
// and the thread apply the same steps in the same order (a port delivers messages in order),
// so each knows what the other holds without asking.
import { boundedCache } from '../bounded-cache';
import type { DeclarationSet, SetReference } from './types';

/** Sets held at most, and their text (UTF-16 code units) at most: the warm checkers' own bounds (checker.ts). */
const SETS_HELD = 16;
const SET_CHARACTERS_HELD = 8 * 1024 * 1024;

export class DeclarationSetMemory {
  private readonly sets = boundedCache<DeclarationSet>({
    maxEntries: SETS_HELD,
    maxBytes: SET_CHARACTERS_HELD,
    sizeOf: (set) => set.modules.reduce((sum, text) => sum + text.length, 0),
  });

  /** The pool's end: how to send `set` to its thread (whole the first time, and again once the thread has let it go). */
  send(set: DeclarationSet): SetReference {
    if (this.sets.get(set.hash)) return { hash: set.hash };
    this.sets.set(set.hash, set);
    return set;
  }

  /** The thread's end: the set a message names. */
  receive(reference: SetReference): DeclarationSet {
    if ('modules' in reference) {
      this.sets.set(reference.hash, reference);
      return reference;
    }
    const held = this.sets.get(reference.hash);
    // The two ends keep the same sets; this would be a fault of this module, not of a program.
    if (!held) throw new Error(`the checker thread does not hold the declaration set ${reference.hash}`);
    return held;
  }
}
