// Public API of file areas: resolving guest paths inside a run's file area.
export { FileArea, FileAreaError, type Place, type Resolved } from './file-area';
export { FileAreas } from './file-areas';
/** The filled `vfs` a run's file area is built from (declared in src/blueprints). */
export type { FilledVfs } from '../blueprints';
