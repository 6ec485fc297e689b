// Randomness for programs and trusted guest code: bytes from the runner (the host's CSPRNG),
// the UUIDs and typed-array fills built from them.
import { ArrayPrototypeIndexOf, ArrayPrototypeJoin, ArrayPrototypePush, NumberPrototypeToString, StringPrototypePadStart, StringPrototypeSlice, TypedArrayPrototypeGetBuffer, TypedArrayPrototypeGetByteLength, TypedArrayPrototypeGetByteOffset, TypedArrayPrototypeSet, typedArrayKind, Uint8Array_ } from './primordials';
import { native } from './native';
import { base64ToBytes } from './encoding';
import { newDOMException } from './dom-exception';

export function randomBytes(count: number): Uint8Array {
  const text = native.random(count);
  return base64ToBytes(typeof text === 'string' ? text : '');
}

export function randomUUID(): string {
  const b = randomBytes(16);
  b[6] = (b[6] & 0x0f) | 0x40;
  b[8] = (b[8] & 0x3f) | 0x80;
  const digits: string[] = [];
  for (let i = 0; i < 16; i++) ArrayPrototypePush(digits, StringPrototypePadStart(NumberPrototypeToString(b[i], 16), 2, '0'));
  const hex = ArrayPrototypeJoin(digits, '');
  return `${StringPrototypeSlice(hex, 0, 8)}-${StringPrototypeSlice(hex, 8, 12)}-${StringPrototypeSlice(hex, 12, 16)}-${StringPrototypeSlice(hex, 16, 20)}-${StringPrototypeSlice(hex, 20)}`;
}

const INTEGER_ARRAYS = ['Int8Array', 'Uint8Array', 'Uint8ClampedArray', 'Int16Array', 'Uint16Array', 'Int32Array', 'Uint32Array', 'BigInt64Array', 'BigUint64Array'];

export function getRandomValues<T extends ArrayBufferView>(array: T): T {
  const kind = typedArrayKind(array);
  if (kind === undefined || ArrayPrototypeIndexOf(INTEGER_ARRAYS, kind) === -1) {
    // WebCrypto: a typed array of floats is a TypeMismatchError; anything else is not an ArrayBufferView.
    if (kind !== undefined) throw newDOMException('crypto.getRandomValues needs an integer typed array', 'TypeMismatchError');
    throw new TypeError('crypto.getRandomValues needs an integer typed array');
  }
  const byteLength = TypedArrayPrototypeGetByteLength(array);
  if (byteLength > 65536) throw newDOMException('crypto.getRandomValues can fill at most 65536 bytes at once', 'QuotaExceededError');
  TypedArrayPrototypeSet(new Uint8Array_(TypedArrayPrototypeGetBuffer(array), TypedArrayPrototypeGetByteOffset(array), byteLength), randomBytes(byteLength));
  return array;
}
