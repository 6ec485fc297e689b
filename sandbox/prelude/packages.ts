// Loading a run's Packages. Each Package's unit is evaluated once, in dependency order,
// after lockdown; what it exports is hardened (frozen, with everything reachable from it).
// Every importer (the program, and each Package that lists another as a dependency) gets
// its own namespace of handles (boundary.ts): a call through it copies the arguments in and
// runs under the importer's name, so a handle the program hands a Package (bound, as a
// getter, as a toString) still speaks for the program.
import { arrayFilter, ArrayIsArray, ArrayPrototypePush, ObjectCreate, ObjectDefineProperty, ObjectFreeze, ObjectKeys, ObjectPrototype, own, ReflectApply, SafeMap, onFirstUse, SafeWeakSet, String_ } from './primordials';
import { frozenIntrinsics, isObject, pushNeighbours } from './lockdown';
import { expose, isView, type Charge } from './boundary';

type Unit = (require: (name: string) => unknown, module: { exports: Record<string, unknown> }, exports: Record<string, unknown>) => void;

/** What the runner's spec says of one Package. */
export interface PackageSpec {
  name: string;
  filename: string;
  imports: string[];
}

/** The Package entries of the spec, checked (the runner's JSON, but read field by field). */
export function packageSpecs(spec: unknown): PackageSpec[] {
  const list = own(spec, 'packages');
  const out: PackageSpec[] = [];
  if (!ArrayIsArray(list)) return out;
  for (let i = 0; i < list.length; i++) {
    const name = own(list[i], 'name');
    const filename = own(list[i], 'filename');
    const imports = own(list[i], 'imports');
    if (typeof name !== 'string' || typeof filename !== 'string' || !ArrayIsArray(imports)) continue;
    ArrayPrototypePush(out, { name, filename, imports: arrayFilter(imports, (x: unknown) => typeof x === 'string') as string[] });
  }
  return out;
}

const hardened = onFirstUse(() => new SafeWeakSet<object>());

/** Freezes `root` and everything reachable from it (own properties, accessors, prototypes). */
export function harden(root: unknown): void {
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const value = stack.pop();
    if (!isObject(value) || hardened().has(value) || frozenIntrinsics().has(value) || isView(value)) continue;
    hardened().add(value);
    ObjectFreeze(value);
    pushNeighbours(value, stack);
  }
}

/** Hardens a Package's exports (once, when it is loaded), skipping the CommonJS marker. */
function hardenExports(exports: Record<string, unknown>): Record<string, unknown> {
  const kept = ObjectCreate(null) as Record<string, unknown>;
  const keys = ObjectKeys(exports);
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i];
    if (key === '__esModule') continue;
    const value = exports[key];
    harden(value);
    ObjectDefineProperty(kept, key, { value, enumerable: true });
  }
  return ObjectFreeze(kept);
}

/** A frozen, prototype-less namespace of a Package's exports as `holder` imports them: each value its handle. */
function namespaceOf(exports: Record<string, unknown>, holder: string, charge: Charge): Record<string, unknown> {
  const namespace = ObjectCreate(null) as Record<string, unknown>;
  const keys = ObjectKeys(exports);
  for (let i = 0; i < keys.length; i++) ObjectDefineProperty(namespace, keys[i], { value: expose(exports[keys[i]], holder, charge), enumerable: true });
  return ObjectFreeze(namespace);
}

/**
 * Evaluates the Packages in order (dependencies first) and returns the program's namespaces
 * by name. `units` are the compiled Packages' unit functions; `hostModule` answers `svc:`
 * imports. A Package may import only the Packages its spec lists.
 */
export function loadPackages(
  specs: readonly PackageSpec[],
  units: readonly Unit[],
  hostModule: (name: string, owner: string) => unknown,
  charge: Charge,
): Map<string, Record<string, unknown>> {
  const loaded = new SafeMap<string, Record<string, unknown>>();
  const namespaces = new SafeMap<string, Record<string, unknown>>();
  const namespaceFor = (name: string, holder: string): Record<string, unknown> | undefined => {
    const exports = loaded.get(name);
    if (exports === undefined) return undefined;
    const key = `${holder}\n${name}`;
    let namespace = namespaces.get(key);
    if (namespace === undefined) {
      namespace = namespaceOf(exports, holder, charge);
      namespaces.set(key, namespace);
    }
    return namespace;
  };
  for (let i = 0; i < specs.length; i++) {
    const spec = specs[i];
    const imports = spec.imports;
    const require = (name: string) => {
      if (typeof name === 'string' && name.length > 4 && name[0] === 's' && name[1] === 'v' && name[2] === 'c' && name[3] === ':') return hostModule(name, spec.name);
      for (let k = 0; k < imports.length; k++) {
        if (imports[k] === name) {
          const namespace = namespaceFor(name, spec.name);
          if (namespace !== undefined) return namespace;
        }
      }
      throw new Error(`module ${String_(name)} is not available to ${spec.name}`);
    };
    const module = { exports: ObjectCreate(ObjectPrototype) as Record<string, unknown> };
    ReflectApply(units[i], undefined, [require, module, module.exports]);
    loaded.set(spec.name, hardenExports(own(module, 'exports') ?? {}));
  }
  const forProgram = new SafeMap<string, Record<string, unknown>>();
  for (let i = 0; i < specs.length; i++) forProgram.set(specs[i].name, namespaceFor(specs[i].name, 'main') as Record<string, unknown>);
  return forProgram;
}
