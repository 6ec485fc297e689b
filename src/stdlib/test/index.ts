// `svc:test`: available only under the Package test runner.
// `label` names the current test in the runner's output; `expectException` runs in the
// guest (it needs the caller's function), so the host side only records labels.
import { ungated } from '../types';
import { declarationsOf, stdlibModule } from '../sources';

export const TEST_DECLARATIONS = declarationsOf('test');

export const testModule = stdlibModule('test', {
  description: 'Package test helpers (Package test runner only)',
  operations: {
    label: ungated('a test label only reaches the Package test runner\'s output', {
      parse: (args) => String(args[0]),
      run: (call, description: string) => {
        call.services.testLabel?.(description);
        return undefined;
      },
    }),
  },
  availableFor: (services) => services.testLabel !== undefined,
});
