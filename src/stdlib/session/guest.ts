// Guest side of `svc:session`: a value is checked to be JSON data here and crosses as JSON
// text from P.encodeJson (the data itself, no toJSON consulted); get() parses afresh.
import type { GuestCall, GuestPrimordials } from '../guest-contract';

export default function sessionGuest(call: GuestCall, P: GuestPrimordials): object {
  const check = (value: unknown, path: string, seen: Set<object>): void => {
    if (value === null || typeof value === 'string' || typeof value === 'boolean') return;
    if (typeof value === 'number') {
      if (!P.NumberIsFinite(value)) throw new P.TypeError_('session.set: ' + path + ' is not a finite number; only JSON data can be stored');
      return;
    }
    if (typeof value !== 'object') throw new P.TypeError_('session.set: ' + path + ' is a ' + typeof value + '; only JSON data can be stored');
    if (seen.has(value)) throw new P.TypeError_('session.set: ' + path + ' is part of a cycle');
    const isArray = P.ArrayIsArray(value);
    const proto = P.ObjectGetPrototypeOf(value);
    if (!isArray && proto !== P.ObjectPrototype && proto !== null) throw new P.TypeError_('session.set: ' + path + ' is a ' + P.StringPrototypeSlice(P.ObjectPrototypeToString(value), 8, -1) + '; only plain objects, arrays, strings, finite numbers, booleans and null can be stored');
    seen.add(value);
    const keys = P.ObjectKeys(value);
    for (let i = 0; i < keys.length; i++) check((value as Record<string, unknown>)[keys[i]], path + (isArray ? '[' + keys[i] + ']' : '.' + keys[i]), seen);
    seen.delete(value);
  };
  return {
    get(key: unknown) { const text = call('get', key); return typeof text === 'string' ? P.JSONParse(text) : undefined; },
    has(key: unknown) { return call('has', key); },
    set(key: unknown, value: unknown) { check(value, '$', new P.SafeSet<object>()); call('set', key, P.encodeJson(value, 'session.set')); },
    remove(key: unknown) { return call('remove', key); },
    list(prefix: unknown, limit: unknown, cursor: unknown) { return call('list', prefix, limit, cursor); },
  };
}
