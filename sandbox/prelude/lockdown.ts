// Frozen built-ins for runs that load Packages. The program and its Packages share one
// context; a program that could replace `JSON.stringify`, `Array.prototype.map`, an
// iterator's `next`, `Function.prototype.call` or a setter on `Object.prototype` would run
// its own code inside a Package call, with the Package's data (its secret in a header
// object, the checked value on its way to the effect). So before any Package or program
// code runs, every intrinsic reachable from the global object (plus the hidden ones:
// iterator and generator prototypes, and what the caller adds, such as CallSite) is frozen, and the global object's
// existing bindings become read-only. New globals may still be added.
//
// Freezing a prototype breaks plain assignment of a same-named property on instances
// (`this.name = "BillingError"` would throw: the "override mistake"), so the properties
// code commonly assigns on instances are turned into accessors whose setter defines the
// property on the instance instead, as SES does.
import {
  ArrayPrototypePush,
  ObjectDefineProperty,
  ObjectFreeze,
  ObjectGetOwnPropertyDescriptor,
  ObjectGetPrototypeOf,
  ObjectPrototype,
  ObjectPreventExtensions,
  ObjectPrototypeHasOwnProperty,
  ReflectOwnKeys,
  SafeSet,
  onFirstUse,
  SafeWeakSet,
  SetPrototypeHas,
  String_,
  TypeError_,
} from './primordials';

/** Everything lockdown froze (Package hardening stops there). */
export const frozenIntrinsics = onFirstUse(() => new SafeWeakSet<object>());

/** Instance-assignable names on every frozen prototype (all of Object.prototype's). */
const OVERRIDABLE = ['constructor', 'toString', 'toLocaleString', 'valueOf', 'name', 'message', 'toJSON'];

export function isObject(value: unknown): value is object {
  return value !== null && (typeof value === 'object' || typeof value === 'function');
}

/** Pushes what `object` leads to: its prototype and every own property's value, getter and setter. */
export function pushNeighbours(object: object, into: unknown[]): void {
  ArrayPrototypePush(into, ObjectGetPrototypeOf(object));
  const keys = ReflectOwnKeys(object);
  for (let i = 0; i < keys.length; i++) {
    const descriptor = ObjectGetOwnPropertyDescriptor(object, keys[i]);
    if (!descriptor) continue;
    if ('value' in descriptor) ArrayPrototypePush(into, descriptor.value);
    else {
      ArrayPrototypePush(into, descriptor.get);
      ArrayPrototypePush(into, descriptor.set);
    }
  }
}

/** Objects no global property leads to, reached through instances made here. */
function hiddenIntrinsics(): unknown[] {
  const out: unknown[] = [];
  const protoOf = (value: unknown) => (isObject(value) ? ObjectGetPrototypeOf(value) : null);
  const tryPush = (make: () => unknown) => {
    try {
      ArrayPrototypePush(out, make());
    } catch {
      // Not in this engine version.
    }
  };
  tryPush(() => protoOf([][Symbol.iterator]()));
  tryPush(() => protoOf(new Map()[Symbol.iterator]()));
  tryPush(() => protoOf(new Set()[Symbol.iterator]()));
  tryPush(() => protoOf(''[Symbol.iterator]()));
  tryPush(() => protoOf(/a/g[Symbol.matchAll]('')));
  tryPush(() => protoOf(function* () {}));
  tryPush(() => protoOf((function* () {})()));
  tryPush(() => protoOf(async function () {}));
  tryPush(() => protoOf(async function* () {}));
  tryPush(() => protoOf((async function* () {})()));
  tryPush(() => protoOf(new Intl.Segmenter().segment('')));
  tryPush(() => protoOf(new Intl.Segmenter().segment('')[Symbol.iterator]()));
  return out;
}

/** Every object reachable from the roots through own properties (values and accessors) and prototypes. */
function reachable(roots: unknown[]): object[] {
  const seen = new SafeSet<object>();
  const order: object[] = [];
  const stack: unknown[] = [];
  for (let i = 0; i < roots.length; i++) ArrayPrototypePush(stack, roots[i]);
  while (stack.length > 0) {
    const value = stack.pop();
    if (!isObject(value) || SetPrototypeHas(seen, value)) continue;
    seen.add(value);
    ArrayPrototypePush(order, value);
    pushNeighbours(value, stack);
  }
  return order;
}

/** A writable data property becomes an accessor: reads answer the value, writes define it on the instance. */
function tameOverride(owner: object, key: PropertyKey): void {
  const descriptor = ObjectGetOwnPropertyDescriptor(owner, key);
  if (!descriptor || !('value' in descriptor) || !descriptor.writable || !descriptor.configurable) return;
  const value = descriptor.value;
  const accessors = {
    get() {
      return value;
    },
    set(this: unknown, next: unknown) {
      if (this === owner) throw new TypeError_(`Cannot assign to read only property '${String_(key)}' of a built-in (built-ins are frozen in runs that load Packages)`);
      if (!isObject(this)) throw new TypeError_(`Cannot create property '${String_(key)}' on ${typeof this}`);
      if (ObjectPrototypeHasOwnProperty(this, key)) {
        (this as Record<PropertyKey, unknown>)[key] = next;
        return;
      }
      ObjectDefineProperty(this, key, { value: next, writable: true, enumerable: true, configurable: true });
    },
  };
  ObjectFreeze(accessors.get);
  ObjectFreeze(accessors.set);
  ObjectDefineProperty(owner, key, { get: accessors.get, set: accessors.set, enumerable: descriptor.enumerable, configurable: false });
}

/**
 * Freezes the built-ins. `Error.stackTraceLimit` stays a writable data property (V8 reads it
 * without accessors) and `Error.prepareStackTrace` keeps the runtime's accessor.
 */
export function lockdown(extraRoots: readonly unknown[]): void {
  const global = globalThis as Record<PropertyKey, unknown>;
  removeRegExpLegacy();
  const roots: unknown[] = hiddenIntrinsics();
  for (let i = 0; i < extraRoots.length; i++) ArrayPrototypePush(roots, extraRoots[i]);
  // The global object leads to everything else; it is walked, not frozen or tamed (below).
  const names = ReflectOwnKeys(global);
  ArrayPrototypePush(roots, global);
  const objects = reachable(roots);

  const objectKeys = ReflectOwnKeys(ObjectPrototype);
  for (let i = 0; i < objectKeys.length; i++) tameOverride(ObjectPrototype, objectKeys[i]);
  for (let i = 0; i < objects.length; i++) {
    const object = objects[i];
    if (object === ObjectPrototype || object === global || !ObjectPrototypeHasOwnProperty(object, 'constructor')) continue;
    for (let k = 0; k < OVERRIDABLE.length; k++) tameOverride(object, OVERRIDABLE[k]);
  }

  for (let i = 0; i < objects.length; i++) {
    const object = objects[i];
    if (object === global) continue;
    if (object === Error) {
      freezeErrorConstructor();
    } else {
      ObjectFreeze(object);
    }
    frozenIntrinsics().add(object);
  }
  // The global object stays extensible (programs may add globals); what is there is fixed.
  for (let i = 0; i < names.length; i++) {
    const descriptor = ObjectGetOwnPropertyDescriptor(global, names[i]);
    if (!descriptor || !descriptor.configurable) continue;
    if ('value' in descriptor) ObjectDefineProperty(global, names[i], { value: descriptor.value, writable: false, enumerable: descriptor.enumerable, configurable: false });
    else ObjectDefineProperty(global, names[i], { get: descriptor.get, set: descriptor.set, enumerable: descriptor.enumerable, configurable: false });
  }
}

/**
 * The legacy RegExp statics (`RegExp.$1`, `RegExp.input`, `lastMatch`, ...) answer the last
 * match in the whole context, so after a Package ran `/^Bearer (.*)/.exec(header)` the program
 * would read the secret from `RegExp.$1`; and `RegExp.prototype.compile` rewrites a regular
 * expression in place, even a frozen one a Package exported. Both go (as in SES).
 */
function removeRegExpLegacy(): void {
  const keys = ReflectOwnKeys(RegExp);
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i];
    if (typeof key !== 'string' || key === 'length' || key === 'name' || key === 'prototype') continue;
    const descriptor = ObjectGetOwnPropertyDescriptor(RegExp, key);
    if (descriptor && descriptor.configurable && !('value' in descriptor)) delete (RegExp as unknown as Record<PropertyKey, unknown>)[key];
  }
  delete (RegExp.prototype as unknown as Record<string, unknown>).compile;
}

function freezeErrorConstructor(): void {
  const keys = ReflectOwnKeys(Error);
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i];
    const descriptor = ObjectGetOwnPropertyDescriptor(Error, key);
    if (!descriptor || !descriptor.configurable) continue;
    if (key === 'stackTraceLimit') ObjectDefineProperty(Error, key, { value: descriptor.value, writable: true, enumerable: descriptor.enumerable, configurable: false });
    else if ('value' in descriptor) ObjectDefineProperty(Error, key, { value: descriptor.value, writable: false, enumerable: descriptor.enumerable, configurable: false });
    else ObjectDefineProperty(Error, key, { get: descriptor.get, set: descriptor.set, enumerable: descriptor.enumerable, configurable: false });
  }
  ObjectPreventExtensions(Error);
}
