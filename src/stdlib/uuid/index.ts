// `svc:uuid`: v4, time-ordered v7 (monotonic within a run) and validation. Pure, ungated,
// implemented inside the isolate (no host call).
import type { HostModule } from '../types';
import { declarationsOf, guestSource } from '../sources';

export const uuidModule: HostModule = {
  name: 'svc:uuid',
  description: 'UUIDs: random v4, time-ordered v7, validation',
  declarations: declarationsOf('uuid'),
  operations: {},
  guest: guestSource('uuid'),
};
