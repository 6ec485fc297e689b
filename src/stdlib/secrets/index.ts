// `svc:secrets` (Packages only): a declared secret's value. From `main` the call is refused
// as an invariant before any rule is read and before any lookup, whatever the policy.
import { gated } from '../types';
import { stdlibModule } from '../sources';

export const secretsModule = stdlibModule('secrets', {
  description: 'Secret values for Packages (programs never see secrets; pass secret names to Packages)',
  operations: {
    get: gated({
      answersSecret: true,
      // The gate runs before the name is validated so `main` learns nothing about which names exist.
      gate: (args) => ({ capability: 'secrets.get', context: { name: typeof args[0] === 'string' ? args[0] : String(args[0]) } }),
      run: (call, args) => {
        const name = args[0];
        if (typeof name !== 'string' || name === '') throw new TypeError('secrets.get: name must be a non-empty string');
        const value = call.services.secretValue?.(name);
        return value === undefined || value === '' ? undefined : value;
      },
    }),
  },
});
