// Base64 and UTF-8 helpers on the sandbox's atob/btoa and TextEncoder/TextDecoder.

/** Largest file the read operations return, and largest file commitFiles writes (10 MiB). */
export const MAX_FILE_BYTES = 10 * 1024 * 1024;

/** Bytes of standard base64 text; null when it is not base64. */
export function base64ToBytes(text: string): Uint8Array | null {
  let binary: string;
  try {
    binary = atob(text);
  } catch {
    return null;
  }
  return Uint8Array.from(binary, (c) => c.charCodeAt(0));
}

/** Standard base64 of bytes. */
export function bytesToBase64(bytes: Uint8Array): string {
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

/** The UTF-8 text of bytes; null when they are not valid UTF-8 (decoding again must give them back). */
export function utf8OrNull(bytes: Uint8Array): string | null {
  const text = new TextDecoder("utf-8").decode(bytes);
  const again = new TextEncoder().encode(text);
  if (again.length !== bytes.length) return null;
  for (let i = 0; i < bytes.length; i++) if (again[i] !== bytes[i]) return null;
  return text;
}
