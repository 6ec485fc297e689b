// `svc:fs`: the file area, as a host module.
import { stdlibModule } from '../sources';
import { fsOperations } from './operations';

export const fsModule = stdlibModule('fs', {
  description: 'Files of the run\'s file area: read, write, append, list, move, copy, remove and stat, each checked by the policy',
  operations: fsOperations,
});
export { MAX_READ_SIZE } from './area';
