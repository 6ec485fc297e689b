// Public API of the sandbox: compiling programs and running them in runner processes.
export * from './contract';
export { compileProgram, compilePackage, renderCompileError, renderRuntimeError, mapRuntimeStack, MAX_SOURCE_BYTES, type CompileInput, type PackageSource, type PackageCompileResult } from './compile';
export { RunnerPool, type RunnerPoolOptions, type RunJob, type RunLimits, type HostCall, type HostReply, type HostHandler, type HostErrorShape, type RunOutcome, type RunOutcomeKind, type RunError } from './pool';
export { Typechecker, declarationSet, type TypecheckMode, type TypecheckOutcome } from './typecheck';
