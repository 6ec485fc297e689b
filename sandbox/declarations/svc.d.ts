// svc's own globals (not web-platform ones): assert, its errors and navigator. The
// web-platform globals are derived from TypeScript's lib.webworker (web-globals.ts,
// derive.ts); the build (scripts/build/declarations.mjs) writes both into globals.d.ts.
/** Throws `Error(message ?? "assertion failed")` when `condition` is falsy. */
declare function assert(condition: unknown, message?: string): asserts condition;
/** A gated operation was refused (by policy, a runtime invariant or a read-only volume). Denials are final: report them. */
declare class PermissionDeniedError extends Error {
  constructor(message?: string, caller?: string, capability?: string, reason?: string);
  readonly caller: string;
  readonly capability: string;
  readonly reason: string;
  readonly source: "policy" | "invariant" | "read_only";
}
/** A budget or size limit refused the operation; nothing was done. */
declare class QuotaExceededError extends Error {
  constructor(message?: string);
}
interface Navigator {
  /** Names svc. */
  readonly userAgent: string;
  readonly language: string;
  readonly languages: readonly string[];
  readonly hardwareConcurrency: number;
}
declare var navigator: Navigator;
interface RegExpConstructor {
  /** ES2025, provided by core-js (TypeScript's libraries do not declare it yet): `s` with every character that has a meaning in a pattern escaped. */
  escape(string: string): string;
}
interface RequestInit {
  /** "half" for a streamed body (Fetch standard; TypeScript's library does not declare it yet). */
  duplex?: "half";
}
