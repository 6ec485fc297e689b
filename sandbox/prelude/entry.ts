// The guest prelude: evaluated once in every pre-warmed isolate, before any program. It
// installs the globals programs may use, removes what they must not have, and leaves
// entry points the runner takes (and deletes) right after: `run` links and starts a
// compiled program, `collect` reports how it ended once the microtasks have drained,
// `deliver` and the timer pair drive the run's event loop.
// Everything here runs on the primordials (./primordials.ts): the program may patch any
// built-in, but not the host calls, the fuel arithmetic or the report.
import { ArrayIsArray, ArrayPrototypeIncludes, programMayRun, ArrayPrototypePush, FunctionPrototypeCall, JSONParse, own, PromisePrototypeThen, PromiseResolve, ReflectApply, String_, ObjectPrototypeHasOwnProperty, TypeError_ } from './primordials';
import { resultText } from './result';
import { fetchFor, materializeWeb, startWebRun, webTimers } from './web';
import { installAttribution } from './attribution';
import { lockdown } from './lockdown';
import { materializeBuiltins } from './builtins';
import { consoleGroup } from './console';
import { materialize } from './lazy-group';
import { loadPackages, packageSpecs } from './packages';
import { define, installGlobals } from './globals';
import { attributeCalls, attributesCalls, deliver, hostCall, hostCallAsync } from './host-calls';
import { namespaceTables, type GuestFactory } from './namespaces';
import { failure, type Outcome } from './failure';
import { makeRuntime, packageRuntime, type Linked, type Meter } from './meter';
import { reportIsSmall, reportText } from './report';
import { ENTRY_POINT, SCRIPT_FILENAME } from '../contract';

installGlobals();
const global = globalThis as Record<string, unknown>;

// --- running -------------------------------------------------------------------------
let outcome: Outcome | undefined;
let meter: Meter | undefined;

function settle(value: unknown): void {
  if (outcome !== undefined) return;
  try {
    outcome = { ok: true, result: resultText(value) };
  } catch (error) {
    outcome = failure(error);
  }
}

function fail(error: unknown): void {
  if (outcome === undefined) outcome = failure(error);
}

function run(link: (rt: unknown) => Linked, specJson: string, ...packageLinks: Array<(rt: unknown) => unknown>): void {
  try {
    // Nothing of the program has run yet: reading the spec and the linked object is safe.
    const spec: unknown = JSONParse(specJson);
    const linked = link(makeRuntime(spec));
    const takeFuel = own(linked, 'takeFuel') as Linked['takeFuel'];
    const fuelLeft = own(linked, 'fuelLeft') as Linked['fuelLeft'];
    // Packages hold a small chunk of fuel each; what is left counts theirs too.
    const packageFuel: Array<() => number> = [];
    const left = () => {
      let total = fuelLeft();
      for (let i = 0; i < packageFuel.length; i++) total += packageFuel[i]();
      return total;
    };
    const runMeter: Meter = { take: (units) => takeFuel(units), left };
    meter = runMeter;
    // An error nothing caught in a timer, microtask or listener ends the run, as in Deno.
    // In runs with Packages the global fetch is the program's; each Package's code sees its own (its script binds it).
    startWebRun((op, args) => hostCallAsync(runMeter, 'web', op, args, attributesCalls() ? 'main' : null), fail);
    const hostModules = own(spec, 'hostModules') ?? {};
    const factories = (global.__svc_guest_modules ?? {}) as Record<string, GuestFactory>;
    delete global.__svc_guest_modules;
    const namespacesOf = namespaceTables(runMeter, hostModules, factories);
    const hostModule = (name: string, owner = 'main') => {
      const table = namespacesOf(owner);
      if (typeof name === 'string' && ObjectPrototypeHasOwnProperty(table, name)) return table[name];
      throw new Error(`module ${String_(name)} is not available`);
    };
    const specs = packageSpecs(spec);
    let packages: Map<string, Record<string, unknown>> | null = null;
    if (specs.length > 0) {
      // Before any Package or program code: attribution, then frozen built-ins.
      const callSite = installAttribution(SCRIPT_FILENAME, specs);
      attributeCalls();
      // Lockdown freezes the real ES2024+ built-ins, not their stand-ins (builtins.ts).
      materializeBuiltins();
      materializeWeb();
      materialize(consoleGroup);
      lockdown(callSite ? [callSite] : []);
      const units: Array<Parameters<typeof loadPackages>[1][number]> = [];
      for (let i = 0; i < specs.length; i++) {
        const owner = specs[i].name;
        const packageFetch = fetchFor((op, args) => hostCallAsync(runMeter, 'web', op, args, owner));
        const packageLinked = packageLinks[i](packageRuntime(spec, takeFuel, left, packageFetch));
        const packageLeft = own(packageLinked, 'fuelLeft');
        if (typeof packageLeft === 'function') ArrayPrototypePush(packageFuel, packageLeft as () => number);
        ArrayPrototypePush(units, own(own(packageLinked, 'units'), specs[i].name));
      }
      packages = loadPackages(specs, units, hostModule, (units) => runMeter.take(units));
    }
    const listed = own(spec, 'listed');
    const require = (name: string) => {
      if (packages !== null && typeof name === 'string' && ArrayIsArray(listed) && ArrayPrototypeIncludes(listed, name)) {
        const namespace = packages.get(name);
        if (namespace !== undefined) return namespace;
      }
      return hostModule(name);
    };
    const module = { exports: {} as Record<string, unknown> };
    own(linked, 'units').main(require, module, module.exports);
    const main = module.exports.main;
    if (typeof main !== 'function') {
      outcome = { ok: false, name: 'TypeError', message: `main is not a function (it is ${main === null ? 'null' : typeof main})` };
      return;
    }
    const value = FunctionPrototypeCall(main as () => unknown, undefined);
    if (value !== null && (typeof value === 'object' || typeof value === 'function') && typeof (value as { then?: unknown }).then === 'function') {
      PromisePrototypeThen(PromiseResolve(value), settle, fail);
    } else settle(value);
  } catch (error) {
    fail(error);
  }
}

function collect(): string {
  return reportText(outcome, meter);
}

/**
 * The runner's event loop: the next due time while main is pending (-1: no timer; -2: main
 * has settled). With `report`, a settled main's report itself when it is small: the runner
 * then needs no asynchronous `collect` (a hop to isolated-vm's thread and back).
 */
function nextTimer(report: unknown): number | string {
  if (outcome === undefined) return webTimers.nextDue();
  return report === true && reportIsSmall(outcome) ? collect() : -2;
}

/** Runs one due timer; the runner calls it again after the microtasks drain. */
function fireTimers(now: number): void {
  webTimers.fireDue(now);
}

/**
 * The runner's one way in (ENTRY_POINT numbers the entry points). Rest parameters and
 * ReflectApply: no spread, which would iterate with whatever iterator the program installed.
 */
function entry(point: number, ...args: unknown[]): unknown {
  switch (point) {
    case ENTRY_POINT.run:
      return ReflectApply(run as (...args: unknown[]) => void, undefined, args);
    case ENTRY_POINT.collect:
      return collect();
    case ENTRY_POINT.nextTimer:
      return nextTimer(args[0]);
    case ENTRY_POINT.fireTimers:
      return fireTimers(args[0] as number);
    case ENTRY_POINT.deliver:
      return ReflectApply(deliver as (...args: unknown[]) => void, undefined, args);
  }
  throw new TypeError_(`no entry point ${point}`);
}

define('__svc_entry', entry);
// Last: from here on other code may run in this context, so defines copy their descriptors.
programMayRun();
