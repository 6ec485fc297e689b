// `svc:security` (Package plumbing): `check(capability, context)` asks the Blueprint's
// rules; returns on allow, throws PermissionDeniedError on denial. The secrets.get
// invariant does not apply to check.
import { gated } from '../types';
import { stdlibModule } from '../sources';

/** Longest capability name a check may ask about (`<domain>/<operation>` names are far shorter). */
export const MAX_CAPABILITY_CHARS = 256;

export const securityModule = stdlibModule('security', {
  description: 'Permission checks for Package code',
  operations: {
    check: gated({
      attribution: 'consumer',
      parse: (args) => {
        const capability = args[0];
        if (typeof capability !== 'string' || capability === '') throw new TypeError('security.check: capability must be a non-empty string');
        // The name is the guest's own text: bounded like every checked value, since it is
        // matched against rules, kept as a key for the run and written to the audit.
        if (capability.length > MAX_CAPABILITY_CHARS) throw new RangeError(`security.check: capability is ${capability.length} characters long; a capability name takes at most ${MAX_CAPABILITY_CHARS}`);
        const context = args[1];
        // The guest encoded the context once; decide on that copy.
        if (context === null || typeof context !== 'object' || Array.isArray(context)) throw new TypeError('security.check: context must serialise to a JSON object');
        return { capability, context: context as Record<string, unknown> };
      },
      // The check is the whole operation: gated as the capability it asks about.
      gate: ({ capability, context }) => ({ capability, context, check: true }),
      run: (call, { capability }, allowed) => {
        call.services.observeCheck?.(call.caller, capability, allowed[0]?.context ?? {});
        return undefined;
      },
    }),
  },
});
