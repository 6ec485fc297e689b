// Public API of offloading: a pool of worker threads for host work that must stay off the
// server's event loop, and the worker side that answers its tasks.
export { OffloadError, WorkerPool, type OffloadFailure, type PoolOptions, type TaskOptions } from './pool';
export { serveTasks, type TaskHandlers } from './serve';
export { delivered, Transferring, type Delivered } from './protocol';
