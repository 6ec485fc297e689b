// Public API of the sandbox: compiling programs and running them in runner processes.
export * from './contract';
export { compileProgram, renderCompileError, renderRuntimeError, mapRuntimeStack, type CompileInput } from './compile';
export { RunnerPool, type RunnerPoolOptions, type RunJob, type RunLimits, type HostCall, type HostReply, type HostHandler, type HostErrorShape, type RunOutcome, type RunOutcomeKind, type RunError } from './pool';
