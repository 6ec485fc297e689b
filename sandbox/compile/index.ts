// Public API of the compile pipeline.
export { compileProgram, type CompileInput } from './compile';
export { renderCompileError, excerpt } from './diagnostics';
export { mapRuntimeStack, renderRuntimeError } from './stack';
