// `svc:git`: repositories in the file area, importable only when the Blueprint has a
// `git:` block. The guest side is the `Repository` class over the host operations.
import { gitOperations } from './operations';
import { stdlibModule } from '../sources';

export type { GitServices } from './operations';

export const gitModule = stdlibModule('git', {
  description: 'Git repositories in the file area: init, clone, status, diff, commit, branches, fetch, pull',
  operations: gitOperations,
  // The run gets git services only when its Blueprint has a git block.
  availableFor: (services) => services.git !== undefined,
});
