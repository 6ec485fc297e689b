// Public API of the standard library's host side.
export type { RunContext, RunServices, HostCall, HostOperation, HostModule } from './types';
export { HOST_FUEL } from './fuel';
export { hostModules } from './registry';
export { SessionStates } from './session';
export { ModelBudgets, runTokenUsage, type ModelServices } from './llm';
