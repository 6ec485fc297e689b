declare module "svc:uuid" {
  /** Random, lower-case, hyphenated. */
  export function v4(): string;
  /** Time-ordered; monotonic within a run. */
  export function v7(): string;
  /** True for any RFC 9562 UUID (any version), case-insensitive. */
  export function validate(value: string): boolean;
}
