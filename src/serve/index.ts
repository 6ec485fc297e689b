// Public API of the serve module: booting the server and the health-check probe.
export { boot, type BootOptions } from './boot';
export { runHealthCheck } from './health-check';
