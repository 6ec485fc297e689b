// Public API of the program type checker.
export { Typechecker, applyEdits, DEFAULT_LARGE_PROGRAM_KIB, type TypecheckInput, type TypecheckOutcome } from './service';
export { declarationSet } from './declarations';
export { type TypecheckMode, type DeclarationSet } from './types';
