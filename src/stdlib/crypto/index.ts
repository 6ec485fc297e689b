// `svc:crypto`: hashes, HMAC, random bytes and constant-time comparison. Pure, ungated.
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { HOST_FUEL } from '../fuel';
import { ungated } from '../types';
import { stdlibModule } from '../sources';

const PURE = 'pure computation over the arguments: no file, network, secret or state is touched';

const MAX_RANDOM_BYTES = 1_048_576;

function bytesOf(value: unknown, fn: string, name: string): Buffer {
  if (typeof value === 'string') return Buffer.from(value, 'utf8');
  if (value instanceof Uint8Array) return Buffer.from(value.buffer, value.byteOffset, value.byteLength);
  throw new TypeError(`crypto.${fn}: ${name} must be a string or a Uint8Array`);
}

function hash(algorithm: 'sha256' | 'sha512', fn: string) {
  return ungated(PURE, {
    parse: (args) => bytesOf(args[0], fn, 'input'),
    run: (call, input: Buffer) => {
      call.charge(HOST_FUEL.HASH_PER_BYTE * input.length);
      return new Uint8Array(createHash(algorithm).update(input).digest());
    },
  });
}

export const cryptoModule = stdlibModule('crypto', {
  description: 'SHA-256, SHA-512, HMAC-SHA256, secure random bytes and constant-time comparison',
  operations: {
    sha256: hash('sha256', 'sha256'),
    sha512: hash('sha512', 'sha512'),
    hmacSha256: ungated(PURE, {
      parse: (args) => ({ key: bytesOf(args[0], 'hmacSha256', 'key'), message: bytesOf(args[1], 'hmacSha256', 'message') }),
      run: (call, { key, message }: { key: Buffer; message: Buffer }) => {
        call.charge(HOST_FUEL.HASH_PER_BYTE * (key.length + message.length));
        return new Uint8Array(createHmac('sha256', key).update(message).digest());
      },
    }),
    randomBytes: ungated(PURE, {
      parse: (args) => {
        const length = args[0];
        if (typeof length !== 'number' || !Number.isInteger(length) || length < 0 || length > MAX_RANDOM_BYTES) {
          throw new RangeError(`crypto.randomBytes: length must be a whole number from 0 to ${MAX_RANDOM_BYTES}`);
        }
        return length;
      },
      run: (call, length: number) => {
        call.charge(length / 4);
        return new Uint8Array(randomBytes(length));
      },
    }),
    timingSafeEqual: ungated(PURE, {
      run: (_call, args: unknown[]) => {
        if (!(args[0] instanceof Uint8Array) || !(args[1] instanceof Uint8Array)) throw new TypeError('crypto.timingSafeEqual: both arguments must be Uint8Arrays');
        if (args[0].length !== args[1].length) return false;
        return timingSafeEqual(args[0], args[1]);
      },
    }),
  },
});
