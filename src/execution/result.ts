// The execute result and last-run record, built from a
// sandbox outcome or from a refusal before the program ran.

export interface ExecuteError {
  kind: string;
  message: string;
  caller?: string;
  capability?: string;
  source?: string;
  diagnostics?: Array<{ severity: string; line: number; column: number; message: string; notes?: Array<{ line: number; column: number; message: string }> }>;
}

export interface ExecuteResult {
  execution_id: string;
  session_id: string;
  result: string | null;
  console: string[];
  error: ExecuteError | null;
  discovery_warnings?: string[];
}

export interface LastRunRecord {
  result: string | null;
  console: string[];
  error: ExecuteError | null;
}

/** What one execution produced: the response body and the session's last-run record. */
export interface ExecutionReport {
  response: ExecuteResult;
  lastRun: LastRunRecord | null;
}

// The run a last-run record came from (the MCP last-run tool answers it); the record's
// own shape is the interface's and stays without it.
const recordRuns = new WeakMap<object, string>();

export function executionIdOf(record: object): string | null {
  return recordRuns.get(record) ?? null;
}

export function executeResult(ids: { executionId: string; sessionId: string }, result: string | null, consoleLines: string[], error: ExecuteError | null, discoveryWarnings: string[] = []): ExecutionReport {
  const lastRun = { result: error ? null : result, console: consoleLines, error };
  recordRuns.set(lastRun, ids.executionId);
  return {
    response: {
      execution_id: ids.executionId,
      session_id: ids.sessionId,
      result: error ? null : result,
      // The execute result carries console lines only on failure; last-run always has them.
      console: error ? consoleLines : [],
      error,
      // Present only when non-empty.
      ...(discoveryWarnings.length > 0 ? { discovery_warnings: [...discoveryWarnings] } : {}),
    },
    lastRun,
  };
}
