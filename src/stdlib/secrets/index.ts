// `svc:secrets` (Packages only): a declared secret's value. From `main` the call is refused
// as an invariant before any rule is read and before any lookup, whatever the policy.
import type { HostModule } from '../types';

declare module '../types' {
  interface RunServices {
    /** Value of a declared secret (store or harness), or undefined. */
    secretValue?: (name: string) => string | undefined;
  }
}

export const secretsModule: HostModule = {
  name: 'svc:secrets',
  description: 'Secret values for Packages (programs never see secrets; pass secret names to Packages)',
  declarations: `declare module "svc:secrets" {
  /** The value of a secret the Blueprint declares, or undefined when undeclared or without a value. */
  export function get(name: string): string | undefined;
}
`,
  operations: {
    get: (call, args) => {
      const name = args[0];
      // The gate runs first so `main` learns nothing about which names exist.
      call.gate('secrets.get', { name: typeof name === 'string' ? name : String(name) });
      if (typeof name !== 'string' || name === '') throw new TypeError('secrets.get: name must be a non-empty string');
      const value = call.services.secretValue?.(name);
      return value === undefined || value === '' ? undefined : value;
    },
  },
};
