// `svc:session`: key/value state shared by every run of a session. Values cross as JSON
// text checked on the guest side (JSON data only, a fresh parse on every get).
import { QuotaExceededError } from '../../policy';
import { HOST_FUEL } from '../fuel';
import { gated, type RunContext } from '../types';
import { MAX_KEY_UNITS, MAX_VALUE_BYTES } from './state';
import { stdlibModule } from '../sources';

export { SessionStates, SessionState, StateBudget } from './state';

const PAGE_SCAN = 512;

function keyArg(value: unknown, fn: string): string {
  if (typeof value !== 'string') throw new TypeError(`session.${fn}: key must be a string`);
  if (value.length === 0 || value.length > MAX_KEY_UNITS) throw new RangeError(`session.${fn}: a key is 1 to ${MAX_KEY_UNITS} UTF-16 code units long`);
  return value;
}

function store(call: RunContext, fn: string) {
  const session = call.services.sessionState;
  if (!session) throw new Error(`session.${fn}: session state is not available for this run`);
  return session;
}

export const sessionModule = stdlibModule('session', {
  description: 'Key/value state kept across the runs of one session (JSON values, memory only)',
  operations: {
    get: gated({
      parse: (args) => keyArg(args[0], 'get'),
      gate: (key: string) => ({ capability: 'session.read', context: { key } }),
      run: (call, key) => store(call, 'get').state.get(key),
    }),
    has: gated({
      parse: (args) => keyArg(args[0], 'has'),
      gate: (key: string) => ({ capability: 'session.read', context: { key } }),
      run: (call, key) => store(call, 'has').state.has(key),
    }),
    set: gated({
      parse: (args) => {
        const key = keyArg(args[0], 'set');
        const json = args[1];
        if (typeof json !== 'string') throw new TypeError('session.set: value must be JSON data');
        if (json.length * 2 > MAX_VALUE_BYTES) throw new RangeError(`session.set ${key}: a value is at most ${MAX_VALUE_BYTES} bytes`);
        try {
          JSON.parse(json);
        } catch {
          throw new TypeError('session.set: the value did not arrive as JSON text; only JSON data can be stored');
        }
        return { key, json };
      },
      gate: ({ key }) => ({ capability: 'session.write', context: { key } }),
      run: (call, { key, json }, allowed) => {
        call.charge(HOST_FUEL.PARSE_PER_BYTE * json.length);
        const refusal = store(call, 'set').state.set(key, json);
        if (refusal) throw call.refuse('session.write', allowed[0].context, 'quota', new QuotaExceededError(refusal.message));
        return undefined;
      },
    }),
    remove: gated({
      parse: (args) => keyArg(args[0], 'remove'),
      gate: (key: string) => ({ capability: 'session.remove', context: { key } }),
      run: (call, key) => store(call, 'remove').state.remove(key),
    }),
    list: gated({
      parse: (args, run) => {
        const prefix = args[0] ?? '';
        if (typeof prefix !== 'string') throw new TypeError('session.list: prefix must be a string');
        const limit = args[1] ?? 100;
        if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1 || limit > 1000) throw new RangeError('session.list: limit must be a whole number from 1 to 1000');
        const session = store(run, 'list');
        let after: string | undefined;
        if (args[2] !== undefined && args[2] !== null) {
          const opened = typeof args[2] === 'string' ? session.states.openCursor(args[2], prefix) : null;
          if (opened === null) throw new RangeError('session.list: the cursor is not valid for this prefix');
          after = opened;
        }
        return { prefix, limit, session, after };
      },
      gate: ({ prefix }) => ({ capability: 'session.list', context: { prefix } }),
      run: (call, { prefix, limit, session, after }) => {
        const candidates = session.state.keys(prefix, after);
        const scanned = candidates.slice(0, PAGE_SCAN);
        const entries: Array<{ key: string; sizeBytes: number }> = [];
        let last: string | undefined;
        for (const key of scanned) {
          if (entries.length >= limit) break;
          last = key;
          if (call.probe('session.read', { key })) entries.push({ key, sizeBytes: session.state.sizeOf(key) });
        }
        call.charge(HOST_FUEL.ELEM * scanned.length);
        const more = last !== undefined && candidates.indexOf(last) < candidates.length - 1;
        return { entries, nextCursor: more ? session.states.sealCursor(prefix, last!) : undefined };
      },
    }),
  },
});
