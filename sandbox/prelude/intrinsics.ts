// The ECMAScript constructors and namespaces svc's own guest code names freely, as they were
// when the prelude ran, before any program. scripts/build/prelude.mjs injects this module into
// the prelude's bundles (esbuild's `inject`): every free reference to one of these names in
// trusted code reads the capture here, so a program that replaces `globalThis.TypeError` (or
// `Symbol`, `Promise`, `Object`...) is never constructed, called or consulted by the prelude's
// error paths and helpers (it was: bench/PROFILE.md, round 78). primordials.ts captures methods
// one by one; this covers the bare names. Only names the prelude never replaces itself.
const ErrorCaptured = Error;
const TypeErrorCaptured = TypeError;
const RangeErrorCaptured = RangeError;
const SyntaxErrorCaptured = SyntaxError;
const SymbolCaptured = Symbol;
const PromiseCaptured = Promise;
const ObjectCaptured = Object;
const ArrayCaptured = Array;
const ReflectCaptured = Reflect;
const JSONCaptured = JSON;
const MathCaptured = Math;
const StringCaptured = String;
const NumberCaptured = Number;
const BooleanCaptured = Boolean;
const BigIntCaptured = BigInt;
const FunctionCaptured = Function;
const ProxyCaptured = Proxy;
const MapCaptured = Map;
const SetCaptured = Set;
const WeakMapCaptured = WeakMap;
const WeakSetCaptured = WeakSet;
const RegExpCaptured = RegExp;
const DateCaptured = Date;
const ArrayBufferCaptured = ArrayBuffer;
const DataViewCaptured = DataView;
const Uint8ArrayCaptured = Uint8Array;
const Uint16ArrayCaptured = Uint16Array;
const Uint32ArrayCaptured = Uint32Array;
const Int32ArrayCaptured = Int32Array;
const Float64ArrayCaptured = Float64Array;

export {
  ErrorCaptured as Error,
  TypeErrorCaptured as TypeError,
  RangeErrorCaptured as RangeError,
  SyntaxErrorCaptured as SyntaxError,
  SymbolCaptured as Symbol,
  PromiseCaptured as Promise,
  ObjectCaptured as Object,
  ArrayCaptured as Array,
  ReflectCaptured as Reflect,
  JSONCaptured as JSON,
  MathCaptured as Math,
  StringCaptured as String,
  NumberCaptured as Number,
  BooleanCaptured as Boolean,
  BigIntCaptured as BigInt,
  FunctionCaptured as Function,
  ProxyCaptured as Proxy,
  MapCaptured as Map,
  SetCaptured as Set,
  WeakMapCaptured as WeakMap,
  WeakSetCaptured as WeakSet,
  RegExpCaptured as RegExp,
  DateCaptured as Date,
  ArrayBufferCaptured as ArrayBuffer,
  DataViewCaptured as DataView,
  Uint8ArrayCaptured as Uint8Array,
  Uint16ArrayCaptured as Uint16Array,
  Uint32ArrayCaptured as Uint32Array,
  Int32ArrayCaptured as Int32Array,
  Float64ArrayCaptured as Float64Array,
};
