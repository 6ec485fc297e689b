declare module "svc:crypto" {
  /** 32 bytes; strings are hashed as UTF-8. */
  export function sha256(input: string | Uint8Array): Uint8Array;
  /** 64 bytes. */
  export function sha512(input: string | Uint8Array): Uint8Array;
  /** 32 bytes. */
  export function hmacSha256(key: Uint8Array | string, message: string | Uint8Array): Uint8Array;
  /** Secure random bytes; RangeError if length < 0, not an integer, or > 1,048,576. */
  export function randomBytes(length: number): Uint8Array;
  /** Constant-time comparison; false when lengths differ. */
  export function timingSafeEqual(a: Uint8Array, b: Uint8Array): boolean;
}
