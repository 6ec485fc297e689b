declare module "svc:embedding" {
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
