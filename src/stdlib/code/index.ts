// `svc:code`: workspace tools over the file area, as a host module.
import { stdlibModule } from '../sources';
import { codeOperations } from './operations';

export const codeModule = stdlibModule('code', {
  description: 'Workspace tools over the file area: read line windows, search (RE2), glob, tree, exact edits, insertions, diffs and patches',
  operations: codeOperations,
});
export { unifiedDiff } from './operations';
