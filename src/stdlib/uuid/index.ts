// `svc:uuid`: v4, time-ordered v7 (monotonic within a run) and validation. Pure, ungated,
// implemented inside the isolate (no host call).
import type { HostModule } from '../types';

const guest = `function () {
  const hex = (bytes) => Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
  const format = (h) => h.slice(0, 8) + "-" + h.slice(8, 12) + "-" + h.slice(12, 16) + "-" + h.slice(16, 20) + "-" + h.slice(20);
  let lastMs = 0;
  let counter = 0;
  return {
    v4() {
      return crypto.randomUUID();
    },
    v7() {
      let ms = Date.now();
      if (ms <= lastMs) { ms = lastMs; counter++; } else { lastMs = ms; counter = 0; }
      const bytes = crypto.getRandomValues(new Uint8Array(16));
      let t = ms;
      for (let i = 5; i >= 0; i--) { bytes[i] = t % 256; t = Math.floor(t / 256); }
      bytes[6] = 0x70 | ((counter >> 8) & 0x0f);
      bytes[7] = counter & 0xff;
      bytes[8] = (bytes[8] & 0x3f) | 0x80;
      return format(hex(bytes));
    },
    validate(value) {
      return typeof value === "string" && /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(value);
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
