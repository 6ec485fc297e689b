// Public API of file areas: resolving guest paths inside a run's file area.
export { FileArea, FileAreaError, type Place, type Resolved, type AreaMode, type Access } from './file-area';
export { FileAreas, type FilledVfs } from './file-areas';
