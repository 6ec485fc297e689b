// A declaration set and its hash: the ambient module texts a run's Blueprint puts in scope.
// Equal sets (same texts, any order) share a hash, and so a warm checker.
import { createHash } from 'node:crypto';
import { boundedCache, textBytes } from '../bounded-cache';
import type { DeclarationSet } from './types';

/**
 * Digests by text: the same module texts come back run after run (lookups reuse V8's string
 * hash). The texts are the keys, and a Package's declarations can be large: bounded by bytes.
 */
const digests = boundedCache<string>({ maxEntries: 512, maxBytes: 16 * 1024 * 1024, sizeOf: (digest, text) => textBytes(text) + textBytes(digest) });

function digest(text: string): string {
  let found = digests.get(text);
  if (found === undefined) {
    found = createHash('sha256').update(text, 'utf8').digest('hex');
    digests.set(text, found);
  }
  return found;
}

export function declarationSet(modules: readonly string[]): DeclarationSet {
  const texts = [...new Set(modules.filter((text) => text.trim() !== ''))];
  const hashes = texts.map(digest);
  const order = texts.map((_, i) => i).sort((a, b) => (hashes[a] < hashes[b] ? -1 : hashes[a] > hashes[b] ? 1 : 0));
  return { hash: createHash('sha256').update(order.map((i) => hashes[i]).join(',')).digest('hex'), modules: order.map((i) => texts[i]) };
}
