// Temporary directories of tests (server homes included): each is removed when the test
// file's process exits, so a run leaves nothing behind in the temp directory.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** Directories made by `tempDir` (server homes included), removed when the test file's process exits. */
const madeDirectories = new Set<string>();
process.on('exit', () => {
  for (const directory of madeDirectories) {
    try {
      fs.rmSync(directory, { recursive: true, force: true });
    } catch (error) {
      // A leftover temp directory must not fail the run; say which one stayed.
      process.stderr.write(`test harness: could not remove ${directory}: ${(error as Error).message}\n`);
    }
  }
});

/**
 * A fresh temporary directory, removed when this test file's process exits (not when a
 * server stops: restart tests start a second server on the first one's home).
 */
export function tempDir(prefix = 'svc-test-'): string {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  madeDirectories.add(directory);
  return directory;
}
