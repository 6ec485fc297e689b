// Guest side of `svc:test`: expectException works on the guest's own values, synchronously
// or through a promise. Test-runner only (no Blueprint and no Package secrets are at stake
// there), so it uses the globals rather than the primordials.
import type { GuestCall } from '../guest-contract';

export default function testGuest(call: GuestCall): object {
  const check = (error: unknown, errorType: string | undefined) => {
    const name = error != null ? (error as { name?: unknown }).name : undefined;
    if (errorType !== undefined && (error == null || name !== errorType)) {
      throw new Error('expectException: expected ' + errorType + ', got ' + (error != null && name ? name : String(error)));
    }
    return error;
  };
  return {
    label: (description: unknown) => {
      call('label', String(description));
    },
    expectException: (fn: unknown, errorType?: string) => {
      if (typeof fn !== 'function') throw new TypeError('expectException: fn must be a function');
      let result: unknown;
      try {
        result = fn();
      } catch (error) {
        return check(error, errorType);
      }
      if (result !== null && typeof result === 'object' && typeof (result as { then?: unknown }).then === 'function') {
        return Promise.resolve(result).then(
          () => {
            throw new Error('expectException: nothing was thrown' + (errorType ? ' (expected ' + errorType + ')' : ''));
          },
          (error) => check(error, errorType),
        );
      }
      throw new Error('expectException: nothing was thrown' + (errorType ? ' (expected ' + errorType + ')' : ''));
    },
  };
}
