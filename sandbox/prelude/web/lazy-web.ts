// The lazy groups' modules (./lazy-modules.ts), made the first time a group is evaluated:
// the bundle's function (svc-build:lazy-web) is called once per context.
import { evaluateLazyWeb } from 'svc-build:lazy-web';

let modules: ReturnType<typeof evaluateLazyWeb> | null = null;

/** Each lazy group's module as a function that evaluates it (once per context). */
export function lazyWebModules(): ReturnType<typeof evaluateLazyWeb> {
  modules ??= evaluateLazyWeb();
  return modules;
}
