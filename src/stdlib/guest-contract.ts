// What a standard-library module's guest side (src/stdlib/<module>/guest.ts) is given and
// returns. scripts/build/stdlib.mjs compiles each guest.ts for the isolate; the runner evaluates it
// before the program and sandbox/prelude/namespaces.ts calls its default export once per
// principal. Types only: nothing here runs in the isolate or on the host.
//
// Guest code is trusted: it calls only the primordials it receives as `P` (captured before
// any program code ran; rules at the top of sandbox/prelude/primordials.ts), reads host
// replies with `P.own`, and freezes what it returns. It imports nothing but types.
import type * as Primordials from '../../sandbox/prelude/primordials';
import type { utf8Decode, utf8Encode } from '../../sandbox/prelude/encoding';
import type { randomBytes, randomUUID } from '../../sandbox/prelude/random';
import type { renderValue } from '../../sandbox/prelude/render';
import type { encodeValue } from '../../sandbox/prelude/wire';
import type { URL } from '../../sandbox/prelude/url';

/** The table guest factories receive: every primordial plus the prelude's trusted helpers. */
export type GuestPrimordials = typeof Primordials & {
  readonly utf8Encode: typeof utf8Encode;
  readonly utf8Decode: typeof utf8Decode;
  readonly randomBytes: typeof randomBytes;
  readonly randomUUID: typeof randomUUID;
  readonly renderValue: typeof renderValue;
  readonly encodeJson: typeof encodeValue;
  readonly URL: typeof URL;
};

/** One synchronous host call of this module's operation `op` (its reply, or the error it threw). */
export type GuestCall = (op: string, ...args: unknown[]) => unknown;

/** The module's operations, one function each (frozen, no prototype). */
export type GuestOperations = Readonly<Record<string, (...args: unknown[]) => unknown>>;

/** A guest factory: the default export of every guest.ts. */
export type GuestFactory = (call: GuestCall, P: GuestPrimordials, raw: GuestOperations) => object;
