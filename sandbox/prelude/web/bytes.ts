// Byte helpers for bodies and Web Crypto, on the prelude's primordials and UTF-8 codec.
import { isArrayBuffer, isDataView, typedArrayKind } from '../primordials';
import { utf8Decode as decode, utf8Encode as encode, viewBytes } from '../encoding';
import { bytesConcat, bytesCopy, TypedArrayPrototypeGetBuffer } from './primordials';

export const utf8Encode = encode;
export const utf8Decode = decode;
export const concatBytes = bytesConcat;

function isBufferSource(value: unknown): boolean {
  return isArrayBuffer(value) || typedArrayKind(value) !== undefined || isDataView(value);
}

/** A copy of a BufferSource's bytes, or null when the value is not one. */
export function bufferSourceCopy(value: unknown): Uint8Array | null {
  return isBufferSource(value) ? bytesCopy(viewBytes(value, 'a body')) : null;
}

/** Bytes of a BufferSource argument (copied), or a TypeError naming the argument. */
export function bufferSource(value: unknown, what: string): Uint8Array {
  if (!isBufferSource(value)) throw new TypeError(`${what} must be an ArrayBuffer, a typed array or a DataView`);
  return bytesCopy(viewBytes(value, what));
}

/** A fresh ArrayBuffer holding exactly these bytes. */
export function toArrayBuffer(bytes: Uint8Array): ArrayBuffer {
  return TypedArrayPrototypeGetBuffer(bytesCopy(bytes)) as ArrayBuffer;
}
