// Public API of the compile pipeline.
export { compileProgram, type CompileInput } from './compile';
export { compilePackage, type PackageSource, type PackageCompileResult } from './package';
export { renderCompileError, excerpt } from './diagnostics';
export { mapRuntimeStack, renderRuntimeError } from './stack';
