// The ECMAScript constructors and namespaces svc's own guest code names freely, as they were
// when the prelude ran, before any program. scripts/build/prelude.mjs injects this module into
// the prelude's bundles (esbuild's `inject`): every free reference to one of these names in
// trusted code reads the capture here, so a program that replaces `globalThis.TypeError` (or
// `Symbol`, `Promise`, `Object`...) is never constructed, called or consulted by the prelude's
// error paths and helpers (it was: bench/PROFILE.md, round 78). primordials.ts captures methods
// one by one; this covers the bare names. Only names the prelude never replaces itself. Read
// from `globalThis`: a module binding named `TypeError` cannot read the global it shadows.
export const Error = globalThis.Error;
export const TypeError = globalThis.TypeError;
export const RangeError = globalThis.RangeError;
export const SyntaxError = globalThis.SyntaxError;
export const Symbol = globalThis.Symbol;
export const Promise = globalThis.Promise;
export const Object = globalThis.Object;
export const Array = globalThis.Array;
export const Reflect = globalThis.Reflect;
export const JSON = globalThis.JSON;
export const Math = globalThis.Math;
export const String = globalThis.String;
export const Number = globalThis.Number;
export const Boolean = globalThis.Boolean;
export const BigInt = globalThis.BigInt;
export const Function = globalThis.Function;
export const Proxy = globalThis.Proxy;
export const Map = globalThis.Map;
export const Set = globalThis.Set;
export const WeakMap = globalThis.WeakMap;
export const WeakSet = globalThis.WeakSet;
export const RegExp = globalThis.RegExp;
export const Date = globalThis.Date;
export const ArrayBuffer = globalThis.ArrayBuffer;
export const DataView = globalThis.DataView;
export const Uint8Array = globalThis.Uint8Array;
export const Uint16Array = globalThis.Uint16Array;
export const Uint32Array = globalThis.Uint32Array;
export const Int32Array = globalThis.Int32Array;
export const Float64Array = globalThis.Float64Array;
