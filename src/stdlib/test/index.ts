// `svc:test`: available only under the Package test runner.
// `label` names the current test in the runner's output; `expectException` runs in the
// guest (it needs the caller's function), so the host side only records labels.
import { ungated, type HostModule } from '../types';

declare module '../types' {
  interface RunServices {
    /** Present only under the Package test runner: receives `label(...)` texts. */
    testLabel?: (description: string) => void;
  }
}

export const TEST_DECLARATIONS = `declare module "svc:test" {
  /** Label the current test in the runner's output. */
  export function label(description: string): void;
  /** Runs \`fn\`; returns the thrown Error, throws if nothing was thrown or the name differs from \`errorType\`. */
  export function expectException(fn: () => Promise<unknown>, errorType?: string): Promise<Error>;
  export function expectException(fn: () => unknown, errorType?: string): Error;
}
`;

// Guest side: expectException works on the guest's own values, synchronously or through a promise.
// (Test-runner only: no Blueprint and no Package secrets are at stake there.)
const guest = `(call) => {
const check = (error, errorType) => {
  if (errorType !== undefined && (error == null || error.name !== errorType)) {
    throw new Error('expectException: expected ' + errorType + ', got ' + (error != null && error.name ? error.name : String(error)));
  }
  return error;
};
return {
  label: (description) => { call('label', String(description)); },
  expectException: (fn, errorType) => {
    if (typeof fn !== 'function') throw new TypeError('expectException: fn must be a function');
    let result;
    try { result = fn(); } catch (error) { return check(error, errorType); }
    if (result !== null && typeof result === 'object' && typeof result.then === 'function') {
      return Promise.resolve(result).then(
        () => { throw new Error('expectException: nothing was thrown' + (errorType ? ' (expected ' + errorType + ')' : '')); },
        (error) => check(error, errorType),
      );
    }
    throw new Error('expectException: nothing was thrown' + (errorType ? ' (expected ' + errorType + ')' : ''));
  },
};
}`;

export const testModule: HostModule = {
  name: 'svc:test',
  description: 'Package test helpers (Package test runner only)',
  declarations: TEST_DECLARATIONS,
  operations: {
    label: ungated('a test label only reaches the Package test runner\'s output', {
      parse: (args) => String(args[0]),
      run: (call, description: string) => {
        call.services.testLabel?.(description);
        return undefined;
      },
    }),
  },
  guest,
  availableFor: (services) => services.testLabel !== undefined,
};
