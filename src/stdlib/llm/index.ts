// `svc:llm`: model calls under the Blueprint's `llm` block and the server's token budgets.
import type { HostModule } from '../types';
import { llmOperations } from './operations';
import { declarationsOf, guestSource } from '../sources';

export { ModelBudgets, runTokenUsage, type ModelServices } from './services';

export const llmModule: HostModule = {
  name: 'svc:llm',
  description: "Language-model calls (the Blueprint's declared models; token budgets apply)",
  declarations: declarationsOf('llm'),
  operations: llmOperations,
  guest: guestSource('llm'),
  availableFor: (services) => services.models !== undefined,
};
