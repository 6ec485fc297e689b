// `svc:uuid`: v4, time-ordered v7 (monotonic within a run) and validation. Pure, ungated,
// implemented inside the isolate (no host call).
import type { HostModule } from '../types';

// Trusted guest code: it runs on the primordials `P` only (see src/stdlib/types.ts).
const guest = `function (call, P) {
  const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
  const hex = (bytes) => {
    const digits = [];
    for (let i = 0; i < 16; i++) P.ArrayPrototypePush(digits, P.StringPrototypePadStart(P.NumberPrototypeToString(bytes[i], 16), 2, "0"));
    return P.ArrayPrototypeJoin(digits, "");
  };
  const format = (h) => P.StringPrototypeSlice(h, 0, 8) + "-" + P.StringPrototypeSlice(h, 8, 12) + "-" + P.StringPrototypeSlice(h, 12, 16) + "-" + P.StringPrototypeSlice(h, 16, 20) + "-" + P.StringPrototypeSlice(h, 20);
  let lastMs = 0;
  let counter = 0;
  return {
    v4() {
      return P.randomUUID();
    },
    v7() {
      let ms = P.DateNow();
      if (ms <= lastMs) { ms = lastMs; counter++; } else { lastMs = ms; counter = 0; }
      const bytes = P.randomBytes(16);
      let t = ms;
      for (let i = 5; i >= 0; i--) { bytes[i] = t % 256; t = P.MathFloor(t / 256); }
      bytes[6] = 0x70 | ((counter >> 8) & 0x0f);
      bytes[7] = counter & 0xff;
      bytes[8] = (bytes[8] & 0x3f) | 0x80;
      return format(hex(bytes));
    },
    validate(value) {
      return typeof value === "string" && P.regExpTest(UUID, value);
    },
  };
}`;

export const uuidModule: HostModule = {
  name: 'svc:uuid',
  description: 'UUIDs: random v4, time-ordered v7, validation',
  declarations: `declare module "svc:uuid" {
  /** Random, lower-case, hyphenated. */
  export function v4(): string;
  /** Time-ordered; monotonic within a run. */
  export function v7(): string;
  /** True for any RFC 9562 UUID (any version), case-insensitive. */
  export function validate(value: string): boolean;
}
`,
  operations: {},
  guest,
};
