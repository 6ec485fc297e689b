// `svc:uuid`: v4, time-ordered v7 (monotonic within a run) and validation. Pure, ungated,
// implemented inside the isolate (no host call).
import { stdlibModule } from '../sources';

export const uuidModule = stdlibModule('uuid', {
  description: 'UUIDs: random v4, time-ordered v7, validation',
  operations: {},
});
