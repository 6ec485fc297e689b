// Public API of the standard library's host side.
export type { RunContext, RunServices, McpRunServices, HostCall, HostOperation, HostModule } from './types';
export { HOST_FUEL } from './fuel';
export { hostModules, checkModule, takesTextAsBytes } from './registry';
export { asyncForm, withAsyncForm, ASYNC_SUFFIX } from './async-form';
export { SessionStates } from './session';
export { RunResources, ResourceError, MAX_OPEN_RESOURCES } from './resources';
export { gated, ungated, type GateRequest, type AllowedGate, type GatedOperation, type UngatedOperation } from './types';
export { ModelBudgets, runTokenUsage, type ModelServices } from './llm';
export { hostTask } from './host-tasks';
