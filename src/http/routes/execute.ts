// POST /v1/execute: a one-off run in a throw-away session. Every outcome is a 200 execute
// result with the `mcp-session-id` header: an unknown Blueprint is `blueprint_not_found`,
// invalid variables or secrets are `invalid_request`.
import type { Hono } from 'hono';
import { z } from 'zod';
import type { Executor, ExecuteResult, RunBlueprint } from '../../execution';
import { bindHarnessSecrets, bindVariables, type BindingDeclarations } from '../../sessions';
import { bodyOf, jsonBody } from '../validation';
import type { AppEnv } from '../types';

export interface ExecuteRouteDependencies {
  executor: Executor;
  /** The Blueprint in force, or null when it is not registered or not usable. */
  resolveBlueprint: (name: string) => { run: RunBlueprint; declarations: BindingDeclarations; cwd: string } | null;
  newId: () => string;
}

const stringMap = z.record(z.string(), z.string());
const oneOffBody = z.object({
  code: z.string(),
  blueprint: z.string(),
  variables: stringMap.optional(),
  secrets: stringMap.optional(),
});

function refusal(executionId: string, sessionId: string, kind: string, message: string): ExecuteResult {
  return { execution_id: executionId, session_id: sessionId, result: null, console: [], error: { kind, message } };
}

export function mountExecuteRoutes(app: Hono<AppEnv>, deps: ExecuteRouteDependencies): void {
  app.post('/v1/execute', jsonBody(oneOffBody), async (c) => {
    const body = bodyOf<z.infer<typeof oneOffBody>>(c);
    const principal = c.get('principal').name;
    const sessionId = deps.newId();
    c.header('mcp-session-id', sessionId);

    const blueprint = deps.resolveBlueprint(body.blueprint);
    if (!blueprint) {
      const executionId = deps.executor.refuse({
        entryPoint: 'http',
        principal,
        sessionId,
        blueprintName: body.blueprint,
        code: body.code,
        errorClass: 'blueprint_not_found',
      });
      return c.json(refusal(executionId, sessionId, 'blueprint_not_found', `blueprint '${body.blueprint}' is not registered on this server`));
    }
    const variables = bindVariables(blueprint.declarations, body.variables);
    const secrets = variables.ok ? bindHarnessSecrets(blueprint.declarations, body.secrets) : null;
    const invalid = !variables.ok ? variables.error : secrets && !secrets.ok ? secrets.error : null;
    if (invalid !== null) {
      const executionId = deps.executor.refuse({
        entryPoint: 'http',
        principal,
        sessionId,
        blueprintName: body.blueprint,
        blueprintHash: blueprint.run.hash,
        variables: variables.ok ? variables.value : {},
        code: body.code,
        errorClass: 'invalid_request',
      });
      return c.json(refusal(executionId, sessionId, 'invalid_request', invalid));
    }

    const report = await deps.executor.execute({
      entryPoint: 'http',
      principal,
      sessionId,
      blueprint: blueprint.run,
      variables: variables.ok ? variables.value : {},
      cwd: blueprint.cwd,
      code: body.code,
      signal: c.get('cancelSignal'),
    });
    return c.json(report.response);
  });
}
