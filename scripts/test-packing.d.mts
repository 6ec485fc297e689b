// Types of scripts/test-packing.mjs, for its unit test.
export interface FileTime {
  wall: number;
  cpu: number | null;
  /** The CPU-s of the runners its servers started (scripts/runner-cpu.mjs); absent or null when not sampled. */
  runners?: number | null;
}
export function coresUsed(time: FileTime, cores: number): number;
export function filesToStart(waiting: string[], running: string[], timeOf: (file: string) => FileTime, limits: { jobs: number; extraJobs: number; cores: number }): string[];
