declare module "svc:test" {
  /** Label the current test in the runner's output. */
  export function label(description: string): void;
  /** Runs `fn`; returns the thrown Error, throws if nothing was thrown or the name differs from `errorType`. */
  export function expectException(fn: () => Promise<unknown>, errorType?: string): Promise<Error>;
  export function expectException(fn: () => unknown, errorType?: string): Error;
  /**
   * Runs `fn`, which must throw `errorType` synchronously with `status` 0 (refused before any
   * request, as the curated Packages' errors are); returns the error's `code`.
   */
  export function expectLocalFailure(fn: () => unknown, errorType: string): string;
}
