// What the capabilities attach to one run (RunContext.services), declared in one place.
// Each member is optional: a run has only what its Blueprint and its caller gave it, and an
// operation that needs a member it lacks says so. Each member's type is owned by its folder.
import type { FileArea } from '../vfs';
import type { GitServices } from './git/operations';
import type { HttpServices } from './http/client';
import type { ModelServices } from './llm/services';
import type { SessionState, SessionStates } from './session/state';
import type { HostModule } from './types';

export interface RunServices {
  /** Called once when the run ends, whatever its outcome (e.g. an ephemeral area goes). */
  endOfRun?: () => void;
  /** The run's file area (src/vfs): svc:fs, svc:code, downloads and git work in it. */
  files?: FileArea;
  /** Outbound HTTP: the egress guard's dispatcher and the Blueprint's auth proxy rules. */
  http?: HttpServices;
  /** The Blueprint's `git` block; without it svc:git cannot be imported. */
  git?: GitServices;
  /** The Blueprint's models and the server's token budgets; without them svc:llm and svc:embedding cannot be imported. */
  models?: ModelServices;
  /** The session's key/value state (svc:session). */
  sessionState?: { state: SessionState; states: SessionStates };
  /** Value of a declared secret (store or harness), or undefined. */
  secretValue?: (name: string) => string | undefined;
  /** The Package test runner prints every allowed check (`[security] caller=… capability=… context=…`). */
  observeCheck?: (caller: string, capability: string, context: Record<string, unknown>) => void;
  /** Present only under the Package test runner: receives `label(...)` texts. */
  testLabel?: (description: string) => void;
  /** The MCP client (src/mcp/client): the `@mcp/<server>` modules this run imports. */
  mcp?: McpRunServices;
}

/** What a run needs from the MCP client: the imported servers as modules, and an end. */
export interface McpRunServices {
  /** Modules for the imported servers that are available; `unavailable` maps `@mcp/<server>` to the reason. */
  prepare(source: string): Promise<{ modules: HostModule[]; warnings: string[]; unavailable: Record<string, string> }>;
  close(): Promise<void>;
}
