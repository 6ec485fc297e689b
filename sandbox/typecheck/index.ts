// Public API of the program type checker.
export { Typechecker, applyEdits, DEFAULT_LARGE_PROGRAM_KIB, type TypecheckInput, type TypecheckOutcome } from './service';
export { declarationSet } from './declarations';
// One compiler per thread: a Package build in the thread of an in-process checker shares its load and code cache.
export { typescript } from './compiler';
export { type TypecheckMode, type DeclarationSet } from './types';
