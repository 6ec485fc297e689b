// `svc:code`: workspace tools over the file area, as a host module.
import type { HostModule } from '../types';
import { declarationsOf } from '../sources';
import { codeOperations } from './operations';

export const codeModule: HostModule = {
  name: 'svc:code',
  description: 'Workspace tools over the file area: read line windows, search (RE2), glob, tree, exact edits, insertions, diffs and patches',
  declarations: declarationsOf('code'),
  operations: codeOperations,
};
export { unifiedDiff } from './operations';
