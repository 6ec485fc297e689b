// V8 compiles eagerly in runners (why: RUNNER_FLAGS, sandbox/pool/runner-process.ts), set
// here, first thing, rather than on the command line: V8 refuses Node's own built-in code
// cache under flags other than those it was made with, so with `--no-lazy` given at start
// Node compiled every built-in module of its start from source, eagerly (about 40 CPU-ms of
// each runner start). Everything compiled from here on, the isolates' prelude included, is eager.
import v8 from 'node:v8';

v8.setFlagsFromString('--no-lazy');
