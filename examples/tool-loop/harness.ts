// An agent harness in a few lines: the Blueprint's prompt becomes AI SDK tools (execute,
// search, docs, builtins, last_run) and generateText runs the tool loop until the model
// answers. Any AI SDK model works; `scriptedModel` below stands in for one so the loop runs
// without a provider account.
//
//   SVC_URL=http://127.0.0.1:8128 SVC_TOKEN=<user token> node --import tsx examples/tool-loop/harness.ts calc
import { generateText, stepCountIs, type LanguageModel } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { SvcClient, svcTools } from '../../clients/typescript/src/index.js';

export interface ToolLoopOptions {
  client: SvcClient;
  blueprint: string;
  model: LanguageModel;
  task: string;
  /** Keep runs in one session (files and svc:session state persist between them). */
  sessionId?: string;
  maxSteps?: number;
}

export async function runToolLoop(options: ToolLoopOptions) {
  const built = await svcTools(options.client, { blueprint: options.blueprint, sessionId: options.sessionId });
  if (!built.ok) throw new Error(`cannot build tools for '${options.blueprint}': ${JSON.stringify(built.error)}`);
  return generateText({
    model: options.model,
    system: 'You solve tasks by writing TypeScript programs and running them with the execute tool.',
    prompt: options.task,
    tools: built.value.tools,
    stopWhen: stepCountIs(options.maxSteps ?? 8),
  });
}

type Prompt = Parameters<MockLanguageModelV3['doGenerate']>[0]['prompt'];
const usage = { inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 5, text: 5, reasoning: 0 } };

/** The latest tool result in the conversation, as the model would read it. */
function lastToolOutput(prompt: Prompt): unknown {
  for (const message of [...prompt].reverse()) {
    if (message.role !== 'tool') continue;
    const part = message.content.findLast((p) => p.type === 'tool-result');
    if (part && part.type === 'tool-result' && part.output.type === 'json') return part.output.value;
  }
  return undefined;
}

/**
 * A model that follows a script: look the module up, read its docs, run a program, fix it
 * once if it failed, read the last run, then answer with what the program printed.
 */
export function scriptedModel(): MockLanguageModelV3 {
  let step = 0;
  const call = (toolName: string, input: unknown) => ({
    content: [{ type: 'tool-call' as const, toolCallId: `call-${step}`, toolName, input: JSON.stringify(input) }],
    finishReason: { unified: 'tool-calls' as const, raw: undefined },
    usage,
    warnings: [],
  });
  return new MockLanguageModelV3({
    doGenerate: async ({ prompt }) => {
      step++;
      switch (step) {
        case 1:
          return call('search', { query: 'crypto' });
        case 2:
          return call('docs', { name: 'svc:crypto' });
        case 3:
          // A first attempt with a mistake, as models make them.
          return call('execute', { code: 'export function main() { return total(; }' });
        case 4: {
          const failed = lastToolOutput(prompt) as { error?: { kind: string } } | undefined;
          if (failed?.error?.kind !== 'compile_error') throw new Error(`expected a compile error, got ${JSON.stringify(failed)}`);
          return call('execute', { code: 'export function main() { const words = ["svc", "runs", "programs"]; console.log(words.length); return words.join(" ").length; }' });
        }
        case 5:
          return call('last_run', {});
        default: {
          const last = lastToolOutput(prompt) as { result: string | null; console: string[] };
          return {
            content: [{ type: 'text' as const, text: `The program returned ${last.result} and logged ${last.console.join(', ')}.` }],
            finishReason: { unified: 'stop' as const, raw: undefined },
            usage,
            warnings: [],
          };
        }
      }
    },
  });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const client = new SvcClient({ baseUrl: process.env.SVC_URL ?? 'http://127.0.0.1:8128', token: process.env.SVC_TOKEN ?? '' });
  const result = await runToolLoop({ client, blueprint: process.argv[2] ?? 'calc', model: scriptedModel(), task: 'Count the characters of a sentence.' });
  for (const step of result.steps) for (const call of step.toolCalls) console.log(`tool ${call.toolName} ${JSON.stringify(call.input)}`);
  console.log(result.text);
}
