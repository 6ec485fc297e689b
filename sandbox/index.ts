// Public API of the sandbox: compiling programs and running them in runner processes.
export * from './contract';
// Guest stacks are mapped and rendered in the runner (runner/render-stack.ts), never on the server: not exported here.
export { compileProgram, compilePackage, configureCompileWorkers, renderCompileError, MAX_SOURCE_BYTES, type CompileInput, type PackageSource, type PackageCompileResult } from './compile';
export { RunnerPool, type RunnerPoolOptions, type RunJob, type RunLimits, type HostCall, type HostReply, type HostHandler, type HostErrorShape, type RunOutcome, type RunOutcomeKind, type RunError, type SuspendedRun } from './pool';
export { Typechecker, declarationSet, type TypecheckMode, type TypecheckOutcome } from './typecheck';
export { defaultEntry as defaultRunnerEntry } from './pool/runner-process';
export { abortSoon } from './pool/call-aborts';
export { argsFromDecoded, StreamedBytes, TextBytes } from './pool/wire';
export { probeConfinement, SANDBOX_FEATURES, SANDBOX_LEVELS, type RunnerConfinement, type SandboxFeature, type SandboxLevel } from './confine';
