// `svc:llm`: model calls under the Blueprint's `llm` block and the server's token budgets.
import { llmOperations } from './operations';
import { stdlibModule } from '../sources';

export { ModelBudgets, runTokenUsage, type ModelServices } from './services';

export const llmModule = stdlibModule('llm', {
  description: "Language-model calls (the Blueprint's declared models; token budgets apply)",
  operations: llmOperations,
  availableFor: (services) => services.models !== undefined,
});
