// Types of scripts/test-packing.mjs, for its unit test.
export interface FileTime {
  wall: number;
  cpu: number | null;
}
export function coresUsed(time: FileTime, cores: number): number;
export function filesToStart(waiting: string[], running: string[], timeOf: (file: string) => FileTime, limits: { jobs: number; extraJobs: number; cores: number }): string[];
