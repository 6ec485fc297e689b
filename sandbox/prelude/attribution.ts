// Who is calling: in runs that load Packages, every host call names the principal whose
// code made it, read from a structured stack capture. The program and each Package run
// under their own script file names, so a frame's file is its owner; runtime frames
// (prelude, guest modules, polyfills, built-ins) have other names and are skipped.
//
// The capture cannot be steered by the program: the runtime owns `Error.prepareStackTrace`
// (a non-configurable accessor: the program's formatter is stored and still used for its
// own `error.stack` strings, never for a capture), `Error.stackTraceLimit` is raised for
// the capture, `Error.captureStackTrace` and the CallSite's `getFileName` were taken
// before any program code ran (and CallSite's prototype is frozen by lockdown).
//
// Two kinds of prelude frame stand for a principal. A callback boundary is a function one
// principal handed another (the supplier's). An entry boundary is a call through a handle,
// the view of another Package's function or object that one principal holds (boundary.ts):
// the Package's check there speaks for the holder, whoever invoked the handle, because a
// bound handle, a getter, a coercion or a Proxy trap leaves no frame of the one who set it
// up. When the code that invoked the handle belongs to another principal the least
// privileged of the two answers: the program whenever it is one of them (its hand is in the
// call; speaking for it gains nobody more than the program has), and nobody (refused) when
// two Packages disagree.
import { ArrayIsArray, ArrayPrototypePush, ObjectCreate, ObjectDefineProperty, ObjectGetPrototypeOf, onFirstUse, ReflectApply, SafeMap } from './primordials';

export interface Attribution {
  /** Owner of the innermost program or Package frame (stdlib gates); null: none. */
  caller: string | null;
  /** Who a `check()` there speaks for; null: not identifiable, or program code inside a Package call. */
  consumer: string | null;
}

/** Frames captured at most; a deeper stack cannot show every owner and its consumer counts as unknown. */
const CAPTURE_LIMIT = 1000;

type Site = object;
const ErrorConstructor = Error as unknown as { stackTraceLimit: unknown; captureStackTrace(target: object): void };
const captureStackTrace = ErrorConstructor.captureStackTrace;

let installed = false;
let capturing = false;
let programFormatter: unknown = undefined;
let getFileName: ((site: Site) => unknown) | null = null;
let getFunctionName: ((site: Site) => unknown) | null = null;
let preludeFile: unknown = null;
const owners = onFirstUse(() => new SafeMap<string, string>());
/** Who handed each callback now running through `callbackBoundary`, or holds each handle running through `entryBoundary` (innermost last; '' = unidentified). */
const suppliers: string[] = [];
/** Parallel to `suppliers`: true for an entry boundary. */
const entries: boolean[] = [];

function captureSites(): Site[] {
  capturing = true;
  const saved = ErrorConstructor.stackTraceLimit;
  try {
    ErrorConstructor.stackTraceLimit = CAPTURE_LIMIT;
    const holder = ObjectCreate(null) as { stack?: unknown };
    ReflectApply(captureStackTrace, ErrorConstructor, [holder]);
    const sites = holder.stack;
    return ArrayIsArray(sites) ? (sites as Site[]) : [];
  } finally {
    ErrorConstructor.stackTraceLimit = saved;
    capturing = false;
  }
}

/**
 * Takes ownership of stack formatting and records which script file belongs to whom.
 * Returns CallSite's prototype (for lockdown to freeze). Call before any program code.
 */
export function installAttribution(programFile: string, packageFiles: ReadonlyArray<{ filename: string; name: string }>): object | null {
  owners().set(programFile, 'main');
  for (let i = 0; i < packageFiles.length; i++) owners().set(packageFiles[i].filename, packageFiles[i].name);
  if (installed) return null;
  installed = true;
  ObjectDefineProperty(Error, 'prepareStackTrace', {
    get() {
      if (capturing) return (_error: unknown, sites: unknown) => sites;
      // V8 formats a stack when it is first read: read inside a Package call, the program's
      // formatter would run there with the Package's error (its message, its frames).
      return programFormatter === undefined || programOnly() ? programFormatter : undefined;
    },
    set(formatter: unknown) {
      programFormatter = formatter;
    },
    enumerable: false,
    configurable: false,
  });
  const current = ErrorConstructor.stackTraceLimit;
  ObjectDefineProperty(Error, 'stackTraceLimit', { value: typeof current === 'number' ? current : 10, writable: true, enumerable: true, configurable: false });
  const sites = captureSites();
  const prototype = sites.length > 0 ? (ObjectGetPrototypeOf(sites[0]) as Record<string, unknown>) : null;
  const method = prototype ? prototype.getFileName : undefined;
  if (typeof method === 'function') getFileName = (site) => ReflectApply(method as (this: Site) => unknown, site, []);
  const nameMethod = prototype ? prototype.getFunctionName : undefined;
  if (typeof nameMethod === 'function') getFunctionName = (site) => ReflectApply(nameMethod as (this: Site) => unknown, site, []);
  // The innermost frame is captureSites, here in the prelude.
  if (getFileName !== null && sites.length > 0) preludeFile = getFileName(sites[0]);
  return prototype;
}

/**
 * Runs a callback one principal handed to another (`supplier`: the caller of the export that
 * received it). While it runs, this frame stands for the supplier: a function with no frame
 * of its own (a bound standard-library function, `secrets.get.bind(null, "KEY")`) called by
 * a Package is then the supplier's call, not the Package's. `run` also copies the result,
 * inside this frame (a Proxy's traps in the result are the supplier's too).
 */
export function callbackBoundary(supplier: string, run: () => unknown): unknown {
  return enter(supplier, false, run);
}

/**
 * Pushes a boundary's principal for the frames of `run`. The stack is cut back to its depth
 * on the way out whatever happened (a stack overflow between two pushes included), so a
 * failed entry never leaves a principal behind for an outer frame to be mistaken for.
 */
function enter(principal: string, entry: boolean, run: () => unknown): unknown {
  const depth = suppliers.length;
  try {
    suppliers[depth] = principal;
    entries[depth] = entry;
    return run();
  } finally {
    suppliers.length = depth;
    entries.length = depth;
  }
}

/**
 * Runs a call through a handle `holder` holds (a Package's function or an object's method as
 * handed to the holder). While it runs, this frame stands for the holder (see the header).
 */
export function entryBoundary(holder: string, run: () => unknown): unknown {
  return enter(holder, true, run);
}
const BOUNDARY_NAME = callbackBoundary.name;
const ENTRY_NAME = entryBoundary.name;

interface Owners {
  /** Owner of each site: its script's principal, a boundary's principal, or null (runtime frames). */
  owners: Array<string | null>;
  /** True where the site is an entry boundary. */
  entry: boolean[];
}

function ownersOf(sites: readonly Site[]): Owners {
  const out: Array<string | null> = [];
  const entry: boolean[] = [];
  let boundaries = 0;
  for (let i = 0; i < sites.length; i++) {
    let owner: string | null = null;
    let isEntry = false;
    const file = getFileName === null ? null : getFileName(sites[i]);
    if (typeof file === 'string') {
      owner = owners().get(file) ?? null;
      if (owner === null && file === preludeFile && getFunctionName !== null) {
        const name = getFunctionName(sites[i]);
        if (name === BOUNDARY_NAME || name === ENTRY_NAME) {
          boundaries++;
          const at = suppliers.length - boundaries;
          owner = at >= 0 ? suppliers[at] : '';
          isEntry = at >= 0 ? entries[at] : true;
        }
      }
    }
    ArrayPrototypePush(out, owner);
    ArrayPrototypePush(entry, isEntry);
  }
  return { owners: out, entry };
}

/**
 * Who the principal found at `at` speaks for: itself, or at an entry boundary the least
 * privileged of the holder and the code that invoked the handle (null: refused).
 */
function speaker(found: Owners, at: number, truncated: boolean): string | null {
  const holder = found.owners[at];
  if (!found.entry[at]) return holder;
  for (let i = at + 1; i < found.owners.length; i++) {
    const invoker = found.owners[i];
    if (invoker === null) continue;
    if (invoker === holder) return holder;
    return invoker === 'main' || holder === 'main' ? 'main' : null;
  }
  // Nobody's code invoked it (a promise job, a timer): the holder's; beyond a truncated capture, unknown.
  return truncated ? null : holder;
}

/** True when no Package (nor a callback a Package handed over) has a frame on the stack. */
function programOnly(): boolean {
  const sites = captureSites();
  if (sites.length >= CAPTURE_LIMIT) return false;
  const found = ownersOf(sites).owners;
  for (let i = 0; i < found.length; i++) if (found[i] !== null && found[i] !== 'main') return false;
  return true;
}

/** The caller and consumer of the host call being made now. */
export function attribute(): Attribution {
  const sites = captureSites();
  const found = ownersOf(sites);
  const truncated = sites.length >= CAPTURE_LIMIT;
  let caller: string | null = null;
  let at = -1;
  for (let i = 0; i < sites.length; i++) {
    const owner = found.owners[i];
    if (owner !== null) {
      caller = owner;
      at = i;
      break;
    }
  }
  if (caller === null) return { caller: null, consumer: null };
  for (let i = at + 1; i < sites.length; i++) {
    const owner = found.owners[i];
    if (owner !== null && owner !== caller) {
      // Program code running inside a Package call (a callback, a toJSON) cannot speak for it.
      if (caller === 'main') return { caller, consumer: null };
      return { caller, consumer: speaker(found, i, truncated) };
    }
  }
  // One principal on the whole stack: `main` (a truncated capture proves nothing).
  return { caller, consumer: truncated ? null : 'main' };
}

/**
 * The attribution of a call made through `owner`'s own standard-library namespace: the call
 * is the owner's wherever it runs. A `check()` there speaks for the owner's consumer: the
 * first other principal outward from the owner's innermost frame (weighed against the
 * handle's invoker at an entry boundary); the program's own `check` inside a Package call
 * speaks for nobody.
 */
export function attributeAs(owner: string): Attribution {
  const sites = captureSites();
  const found = ownersOf(sites);
  const owners = found.owners;
  const truncated = sites.length >= CAPTURE_LIMIT;
  if (owner === 'main') {
    for (let i = 0; i < owners.length; i++) if (owners[i] !== null && owners[i] !== 'main') return { caller: owner, consumer: null };
    return { caller: owner, consumer: truncated ? null : 'main' };
  }
  let from = 0;
  for (let i = 0; i < owners.length; i++) {
    if (owners[i] === owner) {
      from = i;
      break;
    }
  }
  for (let i = from; i < owners.length; i++) if (owners[i] !== null && owners[i] !== owner) return { caller: owner, consumer: speaker(found, i, truncated) };
  return { caller: owner, consumer: truncated ? null : 'main' };
}
