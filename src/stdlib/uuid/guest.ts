// Guest side of `svc:uuid`, all of it: v4, time-ordered v7 (monotonic within a run) and
// validation need no host call.
import type { GuestCall, GuestPrimordials } from '../guest-contract';

export default function uuidGuest(_call: GuestCall, P: GuestPrimordials): object {
  const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
  const hex = (bytes: Uint8Array) => {
    const digits: string[] = [];
    for (let i = 0; i < 16; i++) P.ArrayPrototypePush(digits, P.StringPrototypePadStart(P.NumberPrototypeToString(bytes[i], 16), 2, '0'));
    return P.ArrayPrototypeJoin(digits, '');
  };
  const format = (h: string) => P.StringPrototypeSlice(h, 0, 8) + '-' + P.StringPrototypeSlice(h, 8, 12) + '-' + P.StringPrototypeSlice(h, 12, 16) + '-' + P.StringPrototypeSlice(h, 16, 20) + '-' + P.StringPrototypeSlice(h, 20);
  let lastMs = 0;
  let counter = 0;
  return {
    v4() {
      return P.randomUUID();
    },
    v7() {
      let ms = P.DateNow();
      if (ms <= lastMs) {
        ms = lastMs;
        counter++;
      } else {
        lastMs = ms;
        counter = 0;
      }
      const bytes = P.randomBytes(16);
      let t = ms;
      for (let i = 5; i >= 0; i--) {
        bytes[i] = t % 256;
        t = P.MathFloor(t / 256);
      }
      bytes[6] = 0x70 | ((counter >> 8) & 0x0f);
      bytes[7] = counter & 0xff;
      bytes[8] = (bytes[8] & 0x3f) | 0x80;
      return format(hex(bytes));
    },
    validate(value: unknown) {
      return typeof value === 'string' && P.regExpTest(UUID, value);
    },
  };
}
