// `svc:embedding`: text embeddings under the Blueprint's `llm.embedding_models` and the
// server's embedding budgets. The host returns unit vectors and their little-endian float32
// bytes; the guest side hands out copies through vector(i) / bytes(i).
import type { HostModule } from '../types';
import { embeddingOperations } from './operations';
import { declarationsOf, guestSource } from '../sources';

export const embeddingModule: HostModule = {
  name: 'svc:embedding',
  description: "Text embeddings (the Blueprint's declared embedding models; token budgets apply)",
  declarations: declarationsOf('embedding'),
  operations: embeddingOperations,
  guest: guestSource('embedding'),
  availableFor: (services) => services.models !== undefined,
};
