import { ObjectFreeze } from './primordials';

/** Freezes a class and its prototype: trusted code calls their methods. */
export function sealed<T extends object>(cls: T): T {
  ObjectFreeze((cls as unknown as { prototype: object }).prototype);
  return ObjectFreeze(cls);
}
