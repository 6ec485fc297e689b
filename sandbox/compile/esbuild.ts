// The one door to esbuild's transform service. The service is a Go process that inherits
// this environment: on a small machine one OS thread and a lazier collector halve its CPU
// per transform (measured on 2 cores: 0.9 → 0.45 ms for a hello-world program) without
// slowing it down. An operator's own GOMAXPROCS/GOGC win.
process.env.GOMAXPROCS ??= '1';
process.env.GOGC ??= '400';

export { transform, type Message } from 'esbuild';
