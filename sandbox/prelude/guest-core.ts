// Guest prelude, part 1 (runs INSIDE the isolate, not instrumented): captures the bridge
// to the runner, locks down code generation from strings, defines the runtime-raised
// error classes, and the per-run entry `start` that links units, runs main and settles.
// Kept as source text: it is evaluated once per pre-warmed context, never in Node.

export const GUEST_CORE = String.raw`
const G = globalThis;
const bridge = G.__svc_bridge;
delete G.__svc_bridge;
const call = Function.prototype.call.bind(Function.prototype.call);
const defineProperty = Object.defineProperty;
const freeze = Object.freeze;
const create = Object.create;
const ObjectKeys = Object.keys;
const ArrayIsArray = Array.isArray;
const ArrayPush = Array.prototype.push;
const ArrayJoin = Array.prototype.join;
const ArraySlice = Array.prototype.slice;
const StringSlice = String.prototype.slice;
const JSONStringify = JSON.stringify;
const NativeError = Error;
const NativeTypeError = TypeError;
const NativeRangeError = RangeError;
const NativeEvalError = EvalError;
const NativePromise = Promise;
const PromiseResolve = Promise.resolve.bind(Promise);
const PromiseThen = Promise.prototype.then;
const WeakSetHas = WeakSet.prototype.has;
const WeakSetAdd = WeakSet.prototype.add;
const ObjectToString = Object.prototype.toString;
const FunctionToString = Function.prototype.toString;
const StringCtor = String;
const NumberIsFinite = Number.isFinite;
const MathFloor = Math.floor;

function hidden(target, name, value) {
  defineProperty(target, name, { value, writable: true, configurable: true, enumerable: false });
}
function fixed(target, name, value) {
  defineProperty(target, name, { value, writable: false, configurable: false, enumerable: false });
}

// ---- Nothing of the host or of the engine's extras is reachable. ----
for (const name of ['WebAssembly', 'SharedArrayBuffer', 'Atomics', 'console']) delete G[name];
Error.stackTraceLimit = 40;

// ---- Code generation from strings is refused: it would escape fuel metering. ----
const CODEGEN_REFUSED = 'code generation from strings is disabled in svc programs (eval, new Function and the function constructors would run unmetered code); write the code directly in the program';
function refuseCodegen() { throw new NativeEvalError(CODEGEN_REFUSED); }
function lockConstructor(proto, name) {
  const replacement = { [name]: function () { refuseCodegen(); } }[name];
  replacement.prototype = proto;
  fixed(proto, 'constructor', replacement);
  return replacement;
}
const FunctionReplacement = lockConstructor(Function.prototype, 'Function');
lockConstructor(Object.getPrototypeOf(async function () {}), 'AsyncFunction');
lockConstructor(Object.getPrototypeOf(function* () {}), 'GeneratorFunction');
lockConstructor(Object.getPrototypeOf(async function* () {}), 'AsyncGeneratorFunction');
fixed(G, 'Function', FunctionReplacement);
fixed(G, 'eval', function eval() { refuseCodegen(); });

// ---- Errors the runtime raises. Runtime-created denials are branded privately. ----
const runtimeRaised = new WeakSet();
class PermissionDeniedError extends NativeError {
  constructor(message, caller, capability, reason) {
    super(message);
    hidden(this, 'name', 'PermissionDeniedError');
    defineProperty(this, 'caller', { value: caller, enumerable: true });
    defineProperty(this, 'capability', { value: capability, enumerable: true });
    defineProperty(this, 'reason', { value: reason, enumerable: true });
  }
}
hidden(PermissionDeniedError.prototype, 'name', 'PermissionDeniedError');
class QuotaExceededError extends NativeError {
  constructor(message) { super(message); hidden(this, 'name', 'QuotaExceededError'); }
}
hidden(QuotaExceededError.prototype, 'name', 'QuotaExceededError');
hidden(G, 'PermissionDeniedError', PermissionDeniedError);
hidden(G, 'QuotaExceededError', QuotaExceededError);
hidden(G, 'assert', function assert(condition, message) {
  if (!condition) throw new NativeError(message === undefined || message === null ? 'assertion failed' : StringCtor(message));
});

const ERROR_CLASSES = { Error: NativeError, TypeError: NativeTypeError, RangeError: NativeRangeError, SyntaxError, ReferenceError, URIError, EvalError: NativeEvalError };
function errorFromHost(e) {
  let error;
  if (e.name === 'PermissionDeniedError') {
    error = new PermissionDeniedError(e.message, e.caller, e.capability, e.reason);
    if (e.source !== undefined) defineProperty(error, 'source', { value: e.source, enumerable: true });
    call(WeakSetAdd, runtimeRaised, error);
  } else if (e.name === 'QuotaExceededError') {
    error = new QuotaExceededError(e.message);
  } else {
    const Ctor = ERROR_CLASSES[e.name] || NativeError;
    error = new Ctor(e.message);
    if (Ctor === NativeError && e.name !== 'Error') hidden(error, 'name', e.name);
  }
  if (e.code !== undefined) hidden(error, 'code', e.code);
  return error;
}

// ---- Run state: one run per context (a fresh isolate per run). ----
let program = null;     // { units, takeFuel, fuelLeft } from the compiled script
let ended = null;       // limit kind once the run must end
let maxDepth = 0;

function fuelLeftNow() {
  try { return program ? program.fuelLeft() : null; } catch (e) { return null; }
}
function stackText() {
  try { return StringCtor(new NativeError('limit').stack); } catch (e) { return ''; }
}
/** Ends the run: the runner records the kind and disposes the isolate; never returns. */
function endRun(kind) {
  if (!ended) ended = kind;
  bridge.limit(ended, stackText(), fuelLeftNow());
  for (;;) {}
}
function isStackOverflow(value) {
  try {
    return value instanceof NativeRangeError && value.message === 'Maximum call stack size exceeded';
  } catch (e) { return false; }
}
function checkCaught(value) {
  if (ended) endRun(ended);
  if (isStackOverflow(value)) endRun('stack');
}

// Rejection handlers registered through then/catch/finally get the same check as catch clauses.
defineProperty(Promise.prototype, 'then', {
  writable: true, configurable: true, enumerable: false,
  value: function then(onFulfilled, onRejected) {
    if (typeof onRejected === 'function') {
      const handler = onRejected;
      onRejected = function (reason) { checkCaught(reason); return handler(reason); };
    }
    return call(PromiseThen, this, onFulfilled, onRejected);
  },
});

// ---- Host bridge: svc:<module> namespaces whose functions call the host synchronously. ----
function hostInvoke(moduleName, op, args) {
  if (ended) endRun(ended);
  let reply;
  try {
    reply = bridge.call.applySyncPromise(undefined, [moduleName, op, args, fuelLeftNow()], { arguments: { copy: true } });
  } catch (e) {
    if (ended) endRun(ended);
    throw new NativeTypeError(moduleName + '.' + op + ': the arguments cannot be passed to the host (' + (e && e.message) + '); pass strings, numbers, booleans, plain objects, arrays or Uint8Array');
  }
  if (reply.end) endRun(reply.end);
  program.takeFuel(reply.fuel);
  if (reply.ok) return reply.value;
  throw errorFromHost(reply.error);
}
function hostModule(moduleName, operations) {
  const namespace = {};
  for (const op of operations) {
    const fn = { [op]: function (...args) { return hostInvoke(moduleName, op, args); } }[op];
    defineProperty(namespace, op, { value: fn, enumerable: true, writable: false, configurable: false });
  }
  return freeze(namespace);
}

// ---- Linking: CommonJS units from the compiled script; svc: modules from the host. ----
function linker(units, hostModules) {
  const loaded = create(null);
  const namespaces = create(null);
  function requireSpecifier(specifier) {
    if (typeof specifier === 'string' && StringSlice.call(specifier, 0, 4) === 'svc:') {
      if (!namespaces[specifier]) {
        const operations = hostModules[specifier];
        if (!operations) throw new NativeError('module ' + specifier + ' is not available to this program');
        namespaces[specifier] = hostModule(specifier, operations);
      }
      return namespaces[specifier];
    }
    if (loaded[specifier]) return loaded[specifier].exports;
    const unit = units[specifier];
    if (typeof unit !== 'function') throw new NativeError('cannot find module ' + StringCtor(specifier));
    const module = { exports: {} };
    loaded[specifier] = module;
    unit(requireSpecifier, module, module.exports);
    return module.exports;
  }
  return requireSpecifier;
}

function isThenable(value) {
  return value !== null && (typeof value === 'object' || typeof value === 'function') && typeof value.then === 'function';
}

/** Entry of one run. Returns 'settled' or 'pending' (main's promise still open). */
function start(factory, config) {
  maxDepth = config.maxDepth;
  const runtime = freeze({
    fuelBudget: config.fuelBudget,
    maxDepth: config.maxDepth,
    fuelOut() { endRun('fuel'); },
    stackOut() { endRun('stack'); },
    checkCaught,
  });
  try {
    program = factory(runtime);
    const requireSpecifier = linker(program.units, config.hostModules);
    const exported = requireSpecifier('main');
    const main = exported && exported.main;
    if (typeof main !== 'function') {
      settleError(new NativeTypeError('main is not a function (it is ' + describeType(main) + '); define function main() { ... } and return the result from it'));
      return 'settled';
    }
    const value = main();
    if (isThenable(value)) {
      call(PromiseThen, PromiseResolve(value), settleValue, settleError);
      return 'pending';
    }
    settleValue(value);
  } catch (error) {
    settleError(error);
  }
  return 'settled';
}
`;
