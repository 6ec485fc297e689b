// Public API of the program type checker.
export { Typechecker, applyEdits, DEFAULT_LARGE_PROGRAM_KIB, type TypecheckInput, type TypecheckOutcome } from './service';
export { declarationSet } from './declarations';
// One compiler and one parse of the libraries per thread: a Package build in the thread of an in-process checker shares both.
export { typescript } from './compiler';
export { libraryFiles } from './checker';
export { type TypecheckMode, type DeclarationSet } from './types';
