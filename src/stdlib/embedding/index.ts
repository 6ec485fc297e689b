// `svc:embedding`: text embeddings under the Blueprint's `llm.embedding_models` and the
// server's embedding budgets. The guest side builds vector(i) / bytes(i) (little-endian
// float32) over the unit vectors the host returns.
import type { HostModule } from '../types';
import { embeddingOperations } from './operations';

const guest = `function (call) {
  const wrap = (r) => {
    const check = (fn, index) => {
      if (typeof index !== "number" || !Number.isInteger(index) || index < 0 || index >= r.count) throw new RangeError("embedding." + fn + ": index " + String(index) + " is outside 0.." + (r.count - 1));
    };
    return Object.freeze({
      model: r.model, identity: r.identity, count: r.count, dimensions: r.dimensions,
      inputTokens: r.inputTokens === null ? undefined : r.inputTokens,
      vector(index) { check("vector", index); return r.vectors[index].slice(); },
      bytes(index) {
        check("bytes", index);
        const v = r.vectors[index];
        const out = new Uint8Array(v.length * 4);
        const view = new DataView(out.buffer);
        for (let i = 0; i < v.length; i++) view.setFloat32(i * 4, v[i], true);
        return out;
      },
      toString() { return "Embeddings(" + r.count + " x " + r.dimensions + ", " + r.identity + ")"; },
    });
  };
  return {
    embed: (model, texts, purpose) => wrap(call("embed", model, texts, purpose)),
    models: () => call("models").map((m) => Object.freeze({ ...m, description: m.description === null ? undefined : m.description, maxInputTokens: m.maxInputTokens === null ? undefined : m.maxInputTokens })),
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
