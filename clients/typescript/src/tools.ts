// Tool definitions for the Vercel AI SDK built from a Blueprint's prompt: `execute` carries
// the Blueprint's execute-tool description, the others the server's own descriptions.
// Tool results are plain JSON values; a failed call becomes `{error, message}` so the
// model reads it instead of the loop throwing.
import { tool } from 'ai';
import type { SvcClient, SvcError, SvcResult } from './client.js';
import { builtinsInput, docsInput, executeInput, lastRunInput, searchInput } from './tool-inputs.js';

export { builtinsInput, docsInput, executeInput, lastRunInput, searchInput };

export interface SvcToolsOptions {
  blueprint: string;
  /** Run in this session; without it each `execute` is a one-off run (`POST /v1/execute`). */
  sessionId?: string;
  /** Variables and harness secrets of one-off runs. */
  variables?: Record<string, string>;
  secrets?: Record<string, string>;
}

/** The REST tool names the prompt refers to. */
export const SVC_TOOL_NAMES = ['execute', 'search', 'docs', 'builtins', 'last_run'] as const;

function failure(error: SvcError) {
  switch (error.kind) {
    case 'api':
      return { error: error.code, message: error.message };
    case 'refused':
      return { error: 'refused', message: error.message };
    case 'not_found':
      return { error: 'not_found', message: 'nothing recorded' };
    case 'network':
      return { error: 'unreachable', message: error.message };
  }
}

function unwrap<T>(result: SvcResult<T>): T | ReturnType<typeof failure> {
  return result.ok ? result.value : failure(result.error);
}

/**
 * Fetches the Blueprint's prompt and returns `{system, tools}`: `system` is the execute
 * tool's description (useful as system text too), `tools` a ToolSet for generateText/streamText.
 */
export async function svcTools(client: SvcClient, options: SvcToolsOptions) {
  const prompt = await client.prompt(options.blueprint);
  if (!prompt.ok) return prompt;
  const { blueprint } = options;
  let lastSession = options.sessionId;

  const tools = {
    execute: tool({
      description: prompt.value.prompt,
      inputSchema: executeInput,
      execute: async ({ code }) => {
        const run = lastSession && options.sessionId
          ? await client.execute(lastSession, code)
          : await client.executeOnce({ blueprint, code, variables: options.variables, secrets: options.secrets });
        if (run.ok) lastSession = run.value.session_id;
        return unwrap(run);
      },
    }),
    search: tool({
      description: prompt.value.tools.search,
      inputSchema: searchInput,
      execute: async ({ query }) => unwrap(await client.searchPackages(blueprint, query)),
    }),
    docs: tool({
      description: prompt.value.tools.docs,
      inputSchema: docsInput,
      execute: async ({ name }) => unwrap(await client.packageDocs(blueprint, name)),
    }),
    builtins: tool({
      description: prompt.value.tools.builtins,
      inputSchema: builtinsInput,
      execute: async ({ names }) => (names && names.length > 0 ? unwrap(await client.builtinsDocs(blueprint, names)) : unwrap(await client.builtins(blueprint))),
    }),
    last_run: tool({
      description: prompt.value.tools.last_run,
      inputSchema: lastRunInput,
      execute: async () => (lastSession ? unwrap(await client.lastRun(lastSession)) : { error: 'not_found', message: 'no run yet' }),
    }),
  };
  return { ok: true as const, value: { system: prompt.value.prompt, tools } };
}
