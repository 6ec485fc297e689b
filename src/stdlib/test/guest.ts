// Guest side of `svc:test`: expectException works on the guest's own values, synchronously
// or through a promise; expectLocalFailure is the curated Packages' argument-test check, so
// each Package's tests need no helper of their own. Test-runner only (no Blueprint and no
// Package secrets are at stake there), so it uses the globals rather than the primordials.
import type { GuestCall } from '../guest-contract';

export default function testGuest(call: GuestCall): object {
  const check = (error: unknown, errorType: string | undefined) => {
    const name = error != null ? (error as { name?: unknown }).name : undefined;
    if (errorType !== undefined && (error == null || name !== errorType)) {
      throw new Error('expectException: expected ' + errorType + ', got ' + (error != null && name ? name : String(error)));
    }
    return error;
  };
  const expectException = (fn: unknown, errorType?: string) => {
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
  };
  return {
    label: (description: unknown) => {
      call('label', String(description));
    },
    expectException,
    // The curated Packages' convention: a refusal before any request has status 0 and a `code`.
    expectLocalFailure: (fn: unknown, errorType: string) => {
      const error = expectException(fn, errorType) as { status?: unknown; code?: unknown };
      if (error instanceof Promise) {
        error.catch(() => undefined);
        throw new TypeError('expectLocalFailure: fn must fail synchronously (use expectException for a promise)');
      }
      if (error.status !== 0) throw new Error('expectLocalFailure: expected status 0 (refused before any request), got ' + String(error.status));
      return String(error.code);
    },
  };
}
