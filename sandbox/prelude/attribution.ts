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
import { ArrayIsArray, ObjectCreate, ObjectDefineProperty, ObjectGetPrototypeOf, ReflectApply, SafeMap } from './primordials';

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
const owners = new SafeMap<string, string>();

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
  owners.set(programFile, 'main');
  for (let i = 0; i < packageFiles.length; i++) owners.set(packageFiles[i].filename, packageFiles[i].name);
  if (installed) return null;
  installed = true;
  ObjectDefineProperty(Error, 'prepareStackTrace', {
    get() {
      return capturing ? (_error: unknown, sites: unknown) => sites : programFormatter;
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
  return prototype;
}

function ownerOf(site: Site): string | null {
  if (getFileName === null) return null;
  const file = getFileName(site);
  return typeof file === 'string' ? (owners.get(file) ?? null) : null;
}

/** The caller and consumer of the host call being made now. */
export function attribute(): Attribution {
  const sites = captureSites();
  let caller: string | null = null;
  let at = -1;
  for (let i = 0; i < sites.length; i++) {
    const owner = ownerOf(sites[i]);
    if (owner !== null) {
      caller = owner;
      at = i;
      break;
    }
  }
  if (caller === null) return { caller: null, consumer: null };
  let consumer: string | null = null;
  for (let i = at + 1; i < sites.length; i++) {
    const owner = ownerOf(sites[i]);
    if (owner !== null && owner !== caller) {
      consumer = owner;
      break;
    }
  }
  // Program code running inside a Package call (a callback, a toJSON) cannot speak for it.
  if (caller === 'main' && consumer !== null) return { caller, consumer: null };
  // One principal on the whole stack: `main` (a truncated capture proves nothing).
  if (consumer === null) consumer = sites.length >= CAPTURE_LIMIT ? null : 'main';
  return { caller, consumer };
}
