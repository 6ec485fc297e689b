// Byte helpers for bodies and Web Crypto, on captured intrinsics and the prelude's UTF-8 codec.
import { TextDecoder, TextEncoder } from '../encoding';
import { ArrayBufferCtor, ArrayBufferIsView, ArrayBufferPrototypeGetByteLength, DataViewCtor, ReflectApply, TypedArrayPrototypeGetBuffer, TypedArrayPrototypeGetByteLength, TypedArrayPrototypeGetByteOffset, TypedArrayPrototypeSet, TypedArrayPrototypeSlice, Uint8ArrayCtor } from './primordials';

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const encode = TextEncoder.prototype.encode;
const decode = TextDecoder.prototype.decode;

export function utf8Encode(text: string): Uint8Array {
  return ReflectApply(encode, encoder, [text]) as Uint8Array;
}

export function utf8Decode(bytes: Uint8Array): string {
  return ReflectApply(decode, decoder, [bytes]) as string;
}

function viewBytes(view: ArrayBufferView): Uint8Array {
  if (view instanceof DataViewCtor) return new Uint8ArrayCtor(view.buffer, view.byteOffset, view.byteLength);
  return new Uint8ArrayCtor(TypedArrayPrototypeGetBuffer(view), TypedArrayPrototypeGetByteOffset(view), TypedArrayPrototypeGetByteLength(view));
}

/** A copy of a BufferSource's bytes, or null when the value is not one. */
export function bufferSourceCopy(value: unknown): Uint8Array | null {
  if (value instanceof ArrayBufferCtor) {
    const length = ArrayBufferPrototypeGetByteLength(value);
    return TypedArrayPrototypeSlice(new Uint8ArrayCtor(value, 0, length));
  }
  if (ArrayBufferIsView(value)) return TypedArrayPrototypeSlice(viewBytes(value as ArrayBufferView));
  return null;
}

/** Bytes of a BufferSource argument (copied), or a TypeError naming the argument. */
export function bufferSource(value: unknown, what: string): Uint8Array {
  const bytes = bufferSourceCopy(value);
  if (bytes === null) throw new TypeError(`${what} must be an ArrayBuffer, a typed array or a DataView`);
  return bytes;
}

export function concatBytes(parts: Uint8Array[]): Uint8Array {
  let total = 0;
  for (let i = 0; i < parts.length; i++) total += TypedArrayPrototypeGetByteLength(parts[i]);
  const out = new Uint8ArrayCtor(total);
  let at = 0;
  for (let i = 0; i < parts.length; i++) {
    TypedArrayPrototypeSet(out, parts[i], at);
    at += TypedArrayPrototypeGetByteLength(parts[i]);
  }
  return out;
}

/** A fresh ArrayBuffer holding exactly these bytes. */
export function toArrayBuffer(bytes: Uint8Array): ArrayBuffer {
  return TypedArrayPrototypeGetBuffer(TypedArrayPrototypeSlice(bytes)) as ArrayBuffer;
}
