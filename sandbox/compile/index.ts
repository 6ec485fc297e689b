// Public API of the compile pipeline.
export { type CompileInput, MAX_SOURCE_BYTES, tooDeep } from './compile';
export { compileProgram, compilePackage, configureCompileWorkers } from './workers';
export { type PackageSource, type PackageCompileResult } from './package';
export { renderCompileError, excerpt } from './diagnostics';
export { mapRuntimeStack, renderRuntimeError } from './stack';
