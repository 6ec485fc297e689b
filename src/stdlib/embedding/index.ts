// `svc:embedding`: text embeddings under the Blueprint's `llm.embedding_models` and the
// server's embedding budgets. The host returns unit vectors and their little-endian float32
// bytes; the guest side hands out copies through vector(i) / bytes(i).
import type { HostModule } from '../types';
import { embeddingOperations } from './operations';

// Trusted guest code: it runs on the primordials `P` only (see src/stdlib/types.ts).
const guest = `function (call, P) {
  const wrap = (r) => {
    const count = P.own(r, "count");
    const vectors = P.own(r, "vectors");
    const bytes = P.own(r, "bytes");
    const identity = P.own(r, "identity");
    const dimensions = P.own(r, "dimensions");
    const tokens = P.own(r, "inputTokens");
    const check = (fn, index) => {
      if (typeof index !== "number" || !P.NumberIsInteger(index) || index < 0 || index >= count) throw new P.RangeError_("embedding." + fn + ": index " + (typeof index === "number" ? index : typeof index) + " is outside 0.." + (count - 1));
    };
    return P.ObjectFreeze({
      model: P.own(r, "model"), identity, count, dimensions,
      inputTokens: tokens === null ? undefined : tokens,
      vector(index) { check("vector", index); return P.arrayCopy(vectors[index]); },
      bytes(index) { check("bytes", index); return P.bytesCopy(bytes[index]); },
      toString() { return "Embeddings(" + count + " x " + dimensions + ", " + identity + ")"; },
    });
  };
  const model = (m) => P.ObjectFreeze({
    name: P.own(m, "name"), description: P.own(m, "description") === null ? undefined : P.own(m, "description"),
    dimensions: P.own(m, "dimensions"), maxInputTokens: P.own(m, "maxInputTokens") === null ? undefined : P.own(m, "maxInputTokens"),
    maxInputBytes: P.own(m, "maxInputBytes"), identity: P.own(m, "identity"),
  });
  return {
    embed: (model, texts, purpose) => wrap(call("embed", model, texts, purpose)),
    models: () => P.ObjectFreeze(P.arrayMap(call("models"), model)),
  };
}`;

export const embeddingModule: HostModule = {
  name: 'svc:embedding',
  description: "Text embeddings (the Blueprint's declared embedding models; token budgets apply)",
  declarations: `declare module "svc:embedding" {
  /** All or nothing: 1 to 128 texts, each at most the model's maxInputBytes, 2 MiB in total (RangeError naming the index). */
  export function embed(model: string, texts: string[], purpose: "query" | "document"): Embeddings;
  /** Embedding models of this Blueprint that this caller may use. */
  export function models(): EmbeddingModel[];

  export interface Embeddings {
    readonly model: string;
    readonly identity: string;           // stable id of the vector space
    readonly count: number;
    readonly dimensions: number;
    readonly inputTokens: number | undefined;
    /** Unit-length vector of texts[index]. */
    vector(index: number): number[];
    /** Little-endian float32 bytes of vector(index), dimensions × 4 bytes. */
    bytes(index: number): Uint8Array;
  }
  export interface EmbeddingModel {
    readonly name: string;
    readonly description: string | undefined;
    readonly dimensions: number;
    readonly maxInputTokens: number | undefined;
    readonly maxInputBytes: number;
    readonly identity: string;
  }
}
`,
  operations: embeddingOperations,
  guest,
  availableFor: (services) => services.models !== undefined,
};
