// Public API of file areas: resolving guest paths inside a run's file area without
// following links, the no-follow file primitives, and a confined node-style file system.
export { FileArea, FileAreaError, MAX_PATH_DEPTH, type AreaDescription, type Place, type Resolved, type TokenBudget } from './file-area';
export { FileAreas } from './file-areas';
export { appendNoFollow, appendNoFollowAsync, createExclusive, createExclusiveAsync, linkRefused, openExclusive, openReadNoFollow, readFdAsync, readNoFollow, writeNoFollow, type FinalLink, type Located } from './beneath';
export { placeFs, type PlaceFs } from './place-fs';
export { removeTree } from './remove-tree';
export { DiskUsage, measureTree } from './usage';
/** The filled `vfs` a run's file area is built from (declared in src/blueprints). */
export type { FilledVfs } from '../blueprints';
