// esbuild's CommonJS interop helpers (`__export`, `__toESM`, `__toCommonJS`, ...), made once
// per context and given to every compiled unit (the program's and each Package's) through its
// runtime object: the compile removes esbuild's own copies from the script (sandbox/compile/
// helpers.ts), which V8 otherwise parsed and compiled for every new program. They do what
// esbuild's do, on the primordials: a program that writes a helper's text itself gets these
// in its place and may call them after replacing any built-in.
//
// No fuel is charged and no depth counted: each helper's work is a define per property of an
// object the caller hands it (its keys made by the caller's own code, metered, or by a
// built-in that is not metered per key either, like Object.assign), and the run's CPU limit
// bounds the rest. Whatever a Proxy or getter among those objects runs is the caller's own
// code, metered as such. The helpers hold no state, so the program and Packages share them.
import { ObjectCreate, ObjectDefinePropertyIntrinsic, ObjectFreeze, ObjectGetOwnPropertyDescriptor, ObjectGetOwnPropertyNames, ObjectGetPrototypeOf, ObjectPrototypeHasOwnProperty, ObjectPrototypeHasOwnPropertyIntrinsic, onFirstUse } from './primordials';
import type { CommonJsHelperName } from '../contract';

type Descriptor = PropertyDescriptor & { __proto__: null };

// Descriptors of null prototype: the engine reads their fields through the prototype chain,
// where the program may have put a getter on Object.prototype.
const getterDescriptor = (get: () => unknown, enumerable: boolean): Descriptor => ({ __proto__: null, get, enumerable }) as Descriptor;
const valueDescriptor = (value: unknown, enumerable: boolean): Descriptor => ({ __proto__: null, value, enumerable }) as Descriptor;

// Arrow functions, as esbuild's are: no `prototype` object to share, and not constructors.

/** `export { a, b }`: a getter on `target` per name of `all`, each reading the live binding. */
const exportBindings = (target: object, all: Record<string, () => unknown>): void => {
  for (const name in all) ObjectDefinePropertyIntrinsic(target, name, getterDescriptor(all[name], true));
};

/** A getter on `to` for each own name of `from` that `to` lacks (but `except`), reading it from `from`. */
const copyProperties = (to: object, from: any, except?: string): object => {
  if ((from && typeof from === 'object') || typeof from === 'function') {
    // Indexed, not for-of: the program may have replaced the array iterator.
    const keys = ObjectGetOwnPropertyNames(from);
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i];
      if (!ObjectPrototypeHasOwnProperty(to, key) && key !== except) {
        const desc = ObjectGetOwnPropertyDescriptor(from, key);
        ObjectDefinePropertyIntrinsic(to, key, getterDescriptor(() => from[key], !desc || desc.enumerable === true));
      }
    }
  }
  return to;
};

/** `export * from "m"`: `mod`'s names but `default`, on the exports (and on `secondTarget` when given). */
const reExport = (target: object, mod: unknown, secondTarget?: object): unknown => {
  copyProperties(target, mod, 'default');
  return secondTarget && copyProperties(secondTarget, mod, 'default');
};

/** `import * as ns` / a default import: a namespace of `mod` whose `default` is `mod` itself unless it says it is a converted ES module. */
const toESModule = (mod: any, isNodeMode?: unknown): object => {
  const namespace: object = mod != null ? ObjectCreate(ObjectGetPrototypeOf(mod)) : {};
  return copyProperties(isNodeMode || !mod || !mod.__esModule ? ObjectDefinePropertyIntrinsic(namespace, 'default', valueDescriptor(mod, true)) : namespace, mod);
};

/** A unit's `module.exports`: its exports object's getters, marked as a converted ES module. */
const toCommonJs = (mod: object): object => copyProperties(ObjectDefinePropertyIntrinsic({}, '__esModule', valueDescriptor(true, false)), mod);

/** The helpers, frozen (the program must not be able to change what a Package's code calls), made on first use in a context. */
export const commonJsHelpers = onFirstUse((): Readonly<Record<CommonJsHelperName, unknown>> => {
  const helpers: Record<CommonJsHelperName, unknown> & { __proto__: null } = {
    __proto__: null,
    __create: ObjectCreate,
    __defProp: ObjectDefinePropertyIntrinsic,
    __getOwnPropDesc: ObjectGetOwnPropertyDescriptor,
    __getOwnPropNames: ObjectGetOwnPropertyNames,
    __getProtoOf: ObjectGetPrototypeOf,
    __hasOwnProp: ObjectPrototypeHasOwnPropertyIntrinsic,
    __export: ObjectFreeze(exportBindings),
    __copyProps: ObjectFreeze(copyProperties),
    __reExport: ObjectFreeze(reExport),
    __toESM: ObjectFreeze(toESModule),
    __toCommonJS: ObjectFreeze(toCommonJs),
  };
  return ObjectFreeze(helpers);
});
