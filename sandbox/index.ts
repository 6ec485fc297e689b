// Public API of the sandbox: compiling programs and running them in runner processes.
export * from './contract';
export { compileProgram, renderCompileError, renderRuntimeError, mapRuntimeStack, type CompileInput } from './compile';
