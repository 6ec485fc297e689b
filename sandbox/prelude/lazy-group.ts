// Globals made the first time a program reads any of them: each starts as an accessor, and
// the first read evaluates its group (once per context), which puts the real values in place
// of every accessor the program left there. The web platform's groups (./web/lazy.ts) and
// DOMException (./dom-exception.ts) use it. It depends on captured intrinsics only, so any of
// them can import it without importing each other.
import { ArrayPrototypePush, ObjectDefineProperty, ObjectGetOwnPropertyDescriptor, ObjectSetPrototypeOf, TypeErrorCtor as TypeError_ } from './web/primordials';

interface Attributes {
  enumerable: boolean;
  writable: boolean;
  configurable: boolean;
}

// One per lazy global, made in every fresh context: kept to the fields it needs (no spread
// copy of the attributes, no closure over the group's value), bench/PROFILE.md, round 39.
interface Pending {
  owner: object;
  name: string;
  get: () => unknown;
  value: (made: any, name: string) => unknown;
  attributes: Attributes;
}

/** Globals made by one module the first time a program reads any of them. */
export interface LazyGroup<T> {
  made: T | null;
  evaluating: boolean;
  readonly evaluate: () => void;
  readonly pending: Pending[];
}

/** A group whose `evaluate` calls `provide` with what it made. */
export function lazyGroup<T>(evaluate: () => void): LazyGroup<T> {
  return { made: null, evaluating: false, evaluate, pending: [] };
}

/** Called once per context, by the group's module body. */
export function provide<T>(group: LazyGroup<T>, made: T): void {
  group.made = made;
}

/**
 * `owner[key]`'s descriptor with no prototype: reading a field the descriptor lacks (`get`
 * of a data property) would otherwise reach a getter the program put on Object.prototype.
 */
export function ownDescriptor(owner: object, key: PropertyKey): PropertyDescriptor | undefined {
  const descriptor = ObjectGetOwnPropertyDescriptor(owner, key);
  return descriptor === undefined ? undefined : ObjectSetPrototypeOf(descriptor, null);
}

/** Evaluates the group (once) and fills every accessor of it the program left in place. */
export function materialize<T>(group: LazyGroup<T>): T {
  if (group.made !== null) return group.made;
  if (group.evaluating) throw new TypeError_('a lazily evaluated web module read one of its own globals while it was being evaluated');
  group.evaluating = true;
  try {
    group.evaluate();
  } finally {
    group.evaluating = false;
  }
  const { pending } = group;
  for (let i = 0; i < pending.length; i++) {
    const { owner, name, get, value, attributes } = pending[i];
    const descriptor = ownDescriptor(owner, name);
    // A program that deleted or replaced the global keeps what it did.
    if (descriptor !== undefined && descriptor.get === get) ObjectDefineProperty(owner, name, { value: value(group.made, name), writable: attributes.writable, enumerable: attributes.enumerable, configurable: attributes.configurable });
  }
  pending.length = 0;
  return group.made!;
}

/** The value of a group that hands over its globals by name (`made.globals`): one function for all of them. */
export function fromGlobals(made: { globals: Record<string, unknown> }, name: string): unknown {
  return made.globals[name];
}

/**
 * `owner[name]` as an accessor until its group is evaluated: a read evaluates it, a write
 * (a program's own value) replaces the accessor with a plain property. Afterwards the property
 * has the given attributes, as if it had been defined eagerly. `value` gets the name too, so
 * the globals of one group share one function (fromGlobals) instead of a closure per name in
 * every context.
 */
export function defineLazy<T>(group: LazyGroup<T>, owner: object, name: string, value: (made: T, name: string) => unknown, attributes: Attributes): void {
  const get = function () {
    // While a group is being evaluated its globals are not there yet, as when it was
    // evaluated before them (the encoding classes look for native ones, for instance).
    if (group.evaluating) return undefined;
    const made = materialize(group);
    const descriptor = ownDescriptor(owner, name);
    return descriptor === undefined ? undefined : 'value' in descriptor ? descriptor.value : value(made, name);
  };
  // A read-only property gets no setter: assigning to it fails as it would on the value.
  const set = attributes.writable
    ? function (this: unknown, next: unknown) {
        if (this !== owner) return;
        ObjectDefineProperty(owner, name, { value: next, writable: true, enumerable: attributes.enumerable, configurable: true });
      }
    : undefined;
  ObjectDefineProperty(owner, name, { get, set, enumerable: attributes.enumerable, configurable: true });
  ArrayPrototypePush(group.pending, { owner, name, get, value, attributes });
}
