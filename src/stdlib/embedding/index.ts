// `svc:embedding`: text embeddings under the Blueprint's `llm.embedding_models` and the
// server's embedding budgets. The host returns unit vectors and their little-endian float32
// bytes; the guest side hands out copies through vector(i) / bytes(i).
import { embeddingOperations } from './operations';
import { stdlibModule } from '../sources';

export const embeddingModule = stdlibModule('embedding', {
  description: "Text embeddings (the Blueprint's declared embedding models; token budgets apply)",
  operations: embeddingOperations,
  availableFor: (services) => services.models !== undefined,
});
