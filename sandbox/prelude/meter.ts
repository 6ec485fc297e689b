// The fuel meter: the runtime objects a compiled program and each compiled Package link with
// (budget, depth limit, what happens when either runs out, esbuild's CommonJS helpers), and the
// meter the host calls charge through. The counter itself lives in the compiled script's closure.
import { ObjectCreate, ObjectDefineProperty, ObjectFreeze, ObjectKeys, NumberIsFinite, own } from './primordials';
import { native } from './native';
import { checkCaught, ErrorConstructor, stackText } from './failure';
import { commonJsHelpers } from './commonjs';

/** What a compiled program's script returns when linked: its units and its fuel counter. */
export interface Linked {
  units: Record<string, (require: (name: string) => unknown, module: { exports: Record<string, unknown> }, exports: Record<string, unknown>) => void>;
  takeFuel(n: number): void;
  fuelLeft(): number;
}

/** The compiled program's fuel functions, taken once (the program never sees this object). */
export interface Meter {
  take(units: number): void;
  left(): number;
}

function numberOr(value: unknown, fallback: number): number {
  return typeof value === 'number' && NumberIsFinite(value) ? value : fallback;
}

/** A frozen, prototype-less object of these fields (what a compiled script links with). */
function frozenFields(fields: Record<string, unknown>): object {
  const table = ObjectCreate(null) as Record<string, unknown>;
  const names = ObjectKeys(fields);
  for (let i = 0; i < names.length; i++) ObjectDefineProperty(table, names[i], { value: fields[names[i]], enumerable: true });
  return ObjectFreeze(table);
}

export function makeRuntime(spec: unknown): object {
  return frozenFields({
    fuelBudget: numberOr(own(spec, 'fuelBudget'), 0),
    maxDepth: numberOr(own(spec, 'maxDepth'), 16),
    commonJsHelpers: commonJsHelpers(),
    fuelOut() {
      // The stack names where the run stopped; the runner maps it to program.ts.
      let where = '';
      try {
        where = stackText(new ErrorConstructor('fuel')) ?? '';
      } catch {
        where = '';
      }
      native.limit('fuel_exhausted', 0, where);
    },
    stackOut(fuelLeft: number) {
      native.limit('stack_exhausted', fuelLeft);
    },
    checkCaught,
  });
}

/** The runtime object a Package's script links with: its fuel comes from the program's counter. */
export function packageRuntime(spec: unknown, takeFuel: (units: number) => void, left: () => number, fetch: unknown): object {
  return frozenFields({
    maxDepth: numberOr(own(spec, 'maxDepth'), 16),
    commonJsHelpers: commonJsHelpers(),
    takeFuel,
    fetch,
    stackOut() {
      native.limit('stack_exhausted', left());
    },
    checkCaught,
  });
}
