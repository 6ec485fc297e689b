// Blueprint admin routes (blueprints-and-policy §10): register, replace, read, list and
// delete, with the documented error bodies and one `admin` audit record per mutation.
import type { Context, Hono } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { z } from 'zod';
import type { AuditWriter, ServerLog } from '../../audit';
import { blueprintSummary, BlueprintStoreError, type BlueprintRegistry, type MutationFailure, type MutationResult } from '../../blueprints';
import { capabilityCatalogue } from '../../policy';
import { writeAdminAudit } from '../admin-audit';
import type { AppEnv } from '../types';
import { bodyOf, jsonBody } from '../validation';

export interface BlueprintRouteDependencies {
  registry: BlueprintRegistry;
  audit: AuditWriter;
  log: ServerLog;
}

export const yamlBody = z.object({ yaml: z.string() });

/**
 * The error body of section 10: `name` only for this server's refusals (not for an invalid
 * document), one diagnostic except for a name conflict.
 */
function failureBody(failure: MutationFailure) {
  const { problem } = failure;
  const name = failure.stage === 'server' ? failure.name : undefined;
  return {
    error: problem.code,
    message: problem.message,
    ...(name !== undefined ? { name } : {}),
    ...(problem.code === 'already_exists' ? {} : { diagnostics: [problem.diagnostic] }),
  };
}

function statusOf(code: string): ContentfulStatusCode {
  return code === 'already_exists' ? 409 : 400;
}

function storeFailure(c: Context<AppEnv>, log: ServerLog, error: unknown) {
  log.error('svc_server::blueprints', 'blueprint store failure', { error: (error as Error).message });
  return c.json({ error: 'internal_error', message: 'blueprint store unavailable' }, 500);
}

export function mountBlueprintRoutes(app: Hono<AppEnv>, deps: BlueprintRouteDependencies): void {
  const { registry, audit, log } = deps;

  app.get('/v1/blueprints', (c) => c.json({ blueprints: registry.usable().map(blueprintSummary) }));

  // The capability catalogue, grouped by the module that provides each capability.
  app.get('/v1/capabilities', (c) => {
    const groups = new Map<string, Array<Record<string, unknown>>>();
    for (const entry of capabilityCatalogue) {
      const list = groups.get(entry.source) ?? [];
      list.push({
        name: entry.name,
        summary: entry.summary,
        filter_fields: Object.keys(entry.fields).sort(),
        fields: entry.fields,
        example_filter: entry.exampleFilter,
        ...(entry.mainDenial ? { main_denial: entry.mainDenial } : {}),
      });
      groups.set(entry.source, list);
    }
    return c.json({ groups: [...groups].map(([source, capabilities]) => ({ source, kind: 'stdlib', capabilities })) });
  });

  app.post('/v1/blueprints', jsonBody(yamlBody), (c) => {
    const { yaml } = bodyOf<z.infer<typeof yamlBody>>(c);
    let result: MutationResult;
    try {
      result = registry.create(yaml);
    } catch (error) {
      if (!(error instanceof BlueprintStoreError)) throw error;
      writeAdminAudit(audit, c, 'blueprint_created', 500, {});
      return storeFailure(c, log, error);
    }
    if (!result.ok) {
      const status = statusOf(result.problem.code);
      writeAdminAudit(audit, c, 'blueprint_created', status, result.name ? { name: result.name } : {});
      return c.json(failureBody(result), status);
    }
    writeAdminAudit(audit, c, 'blueprint_created', 200, { name: result.blueprint.name, new_hash: result.blueprint.hash, old_hash: null });
    return c.json({ name: result.blueprint.name, hash: result.blueprint.hash });
  });

  app.get('/v1/blueprints/:name', (c) => {
    const name = c.req.param('name');
    const stored = registry.stored(name);
    if (!stored) return c.json({ error: 'not_found', message: `blueprint '${name}' is not registered`, name }, 404);
    return c.json({ name, yaml: stored.yaml, hash: stored.blueprint?.hash ?? null });
  });

  app.put('/v1/blueprints/:name', jsonBody(yamlBody), (c) => {
    const name = c.req.param('name');
    const { yaml } = bodyOf<z.infer<typeof yamlBody>>(c);
    const existed = registry.stored(name) !== null;
    const event = existed ? 'blueprint_replaced' : 'blueprint_created';
    let result: MutationResult;
    try {
      result = registry.replace(name, yaml);
    } catch (error) {
      if (!(error instanceof BlueprintStoreError)) throw error;
      writeAdminAudit(audit, c, event, 500, { name });
      return storeFailure(c, log, error);
    }
    if (!result.ok) {
      const status = statusOf(result.problem.code);
      writeAdminAudit(audit, c, event, status, { name });
      return c.json(failureBody(result), status);
    }
    writeAdminAudit(audit, c, event, 200, { name, new_hash: result.blueprint.hash, old_hash: result.oldHash });
    return c.json({ name, created: result.created, hash: result.blueprint.hash });
  });

  app.delete('/v1/blueprints/:name', (c) => {
    const name = c.req.param('name');
    let removed: { oldHash: string | null } | undefined;
    try {
      removed = registry.delete(name, c.get('principal').name);
    } catch (error) {
      if (!(error instanceof BlueprintStoreError)) throw error;
      writeAdminAudit(audit, c, 'blueprint_deleted', 500, { name });
      return storeFailure(c, log, error);
    }
    if (!removed) {
      writeAdminAudit(audit, c, 'blueprint_deleted', 404, { name });
      return c.json({ error: 'not_found', message: `blueprint '${name}' is not registered`, name }, 404);
    }
    writeAdminAudit(audit, c, 'blueprint_deleted', 200, { name, old_hash: removed.oldHash });
    return c.json({ name });
  });
}
