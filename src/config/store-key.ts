// The secret store key: key_file wins over key_env; base64 of
// exactly 32 bytes; an unreadable or malformed key stops startup. Never echoed.
import fs from 'node:fs';
import { invalid } from './errors';
import type { Resolver } from './sources';

export function readStoreKey(resolver: Resolver, env: Map<string, string>): Buffer | null {
  const keyFile = resolver.path('secret_store.key_file');
  const keyEnv = resolver.text('secret_store.key_env') ?? 'SVC_SECRET_KEY';
  let text: string;
  let origin: string;
  if (keyFile !== undefined) {
    try {
      text = fs.readFileSync(keyFile, 'utf8');
    } catch (error) {
      throw invalid(`cannot read the secret store key file ${keyFile}: ${(error as Error).message}`);
    }
    origin = `secret store key file ${keyFile}`;
  } else {
    const value = env.get(keyEnv);
    if (value === undefined) return null;
    text = value;
    origin = `secret store key in $${keyEnv}`;
  }
  return decodeStoreKey(text.trim(), origin);
}

/** Standard base64, padding optional, of exactly 32 bytes; never echoes the value. */
function decodeStoreKey(text: string, origin: string): Buffer {
  const expected = `${origin}: expected base64 of exactly 32 bytes (create one with \`openssl rand -base64 32\`)`;
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(text)) throw invalid(expected);
  const key = Buffer.from(text, 'base64');
  // Buffer.from ignores stray trailing bits; a key must round-trip to the same text.
  if (key.toString('base64').replace(/=+$/, '') !== text.replace(/=+$/, '')) throw invalid(expected);
  if (key.length !== 32) throw invalid(`${expected}, got ${key.length} bytes`);
  return key;
}
