// WebIDL conventions the prelude's web classes share, written once. Runs while the prelude
// loads, before any program, and uses only captured intrinsics (primordials.ts).
import { ObjectDefineProperty, SymbolToStringTag } from './primordials';

/**
 * Gives an interface's prototype its class string (`Object.prototype.toString` answers
 * `[object <name>]`) as WebIDL defines it: a data property, not writable, not enumerable,
 * configurable.
 */
export function interfaceName(cls: { readonly prototype: object }, name: string): void {
  ObjectDefineProperty(cls.prototype, SymbolToStringTag, { value: name, configurable: true });
}

/** The bundler may rename a class (TextEncoder2, URL2): a global constructor answers to its own name. */
export function named<T extends { name: string }>(value: T, name: string): T {
  if (value.name !== name) ObjectDefineProperty(value, 'name', { value: name, configurable: true });
  return value;
}

/** Defines an operation (a method) on a prototype as WebIDL does: writable, enumerable, configurable. */
export function defineOperation(prototype: object, name: string, operation: (...args: never[]) => unknown): void {
  ObjectDefineProperty(prototype, name, { value: operation, writable: true, enumerable: true, configurable: true });
}
