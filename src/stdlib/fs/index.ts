// `svc:fs`: the file area, as a host module.
import type { HostModule } from '../types';
import { fsDeclarations } from './declarations';
import { fsGuest } from './guest';
import { fsOperations } from './operations';

export const fsModule: HostModule = {
  name: 'svc:fs',
  description: 'Files of the run\'s file area: read, write, append, list, move, copy, remove and stat, each checked by the policy',
  declarations: fsDeclarations,
  operations: fsOperations,
  guest: fsGuest,
};
export { MAX_READ_SIZE } from './area';
