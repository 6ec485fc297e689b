// `svc:fs`: the file area, as a host module.
import type { HostModule } from '../types';
import { declarationsOf, guestSource } from '../sources';
import { fsOperations } from './operations';

export const fsModule: HostModule = {
  name: 'svc:fs',
  description: 'Files of the run\'s file area: read, write, append, list, move, copy, remove and stat, each checked by the policy',
  declarations: declarationsOf('fs'),
  operations: fsOperations,
  guest: guestSource('fs'),
};
export { MAX_READ_SIZE } from './area';
