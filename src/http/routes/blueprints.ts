// Blueprint admin routes: register, replace, read, list and delete, with the documented
// error bodies and one `admin` audit record per mutation.
import type { Hono } from 'hono';
import { z } from 'zod';
import type { AuditWriter, ServerLog } from '../../audit';
import { blueprintSummary, BlueprintStoreError, type BlueprintRegistry, type MutationFailure, type MutationResult } from '../../blueprints';
import type { CapabilityFile } from '../../packages';
import { capabilityCatalogue } from '../../policy';
import { adminAudit, noteAdminAudit } from '../admin-audit';
import { HttpError } from '../errors';
import type { AppEnv } from '../types';
import { bodyOf, jsonBody } from '../validation';

export interface BlueprintRouteDependencies {
  registry: BlueprintRegistry;
  audit: AuditWriter;
  log: ServerLog;
  /** Installed Packages' capabilities manifests (a group each in GET /v1/capabilities). */
  packageCapabilities?: () => Array<{ name: string; capabilities: CapabilityFile }>;
}

/** A Package's group: what its check() calls ask for, and what its own code requires. */
function packageGroup(name: string, file: CapabilityFile) {
  return {
    source: name,
    kind: 'package',
    capabilities: file.provides.map((provided) => ({
      name: provided.name,
      summary: provided.description ?? '',
      filter_fields: Object.keys(provided.fields).sort(),
      fields: Object.fromEntries(Object.entries(provided.fields).map(([field, info]) => [field, { type: info.type, description: info.description ?? '' }])),
      example_filter: null,
    })),
    requires: file.requires.map((required) => ({ capability: required.capability, ...(required.filter !== undefined ? { filter: required.filter } : {}) })),
  };
}

export const yamlBody = z.object({ yaml: z.string() });

/**
 * A refused registration: `name` only for this server's refusals (not for an invalid
 * document), one diagnostic except for a name conflict.
 */
function refusal(failure: MutationFailure): HttpError {
  const { problem } = failure;
  const name = failure.stage === 'server' ? failure.name : undefined;
  return HttpError.of(problem.code === 'already_exists' ? 409 : 400, problem.code, problem.message, {
    ...(name !== undefined ? { name } : {}),
    ...(problem.code === 'already_exists' ? {} : { diagnostics: [problem.diagnostic] }),
  });
}

/** The store failed: logged here, answered 500; anything else is not the store's and propagates. */
function storeFailure(log: ServerLog, error: unknown): HttpError {
  if (!(error instanceof BlueprintStoreError)) throw error;
  log.error('svc_server::blueprints', 'blueprint store failure', { error: (error as Error).message });
  return HttpError.of(500, 'internal_error', 'blueprint store unavailable');
}

const notRegistered = (name: string) => HttpError.of(404, 'not_found', `blueprint '${name}' is not registered`, { name });

export function mountBlueprintRoutes(app: Hono<AppEnv>, deps: BlueprintRouteDependencies): void {
  const { registry, audit, log } = deps;

  app.get('/v1/blueprints', (c) => c.json({ blueprints: registry.usable().map(blueprintSummary) }));

  // The capability catalogue, grouped by the module that provides each capability, then
  // one group per installed Package (those with neither provides nor requires are omitted).
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
    const stdlib = [...groups].map(([source, capabilities]) => ({ source, kind: 'stdlib', capabilities }));
    const installed = (deps.packageCapabilities?.() ?? []).filter((p) => p.capabilities.provides.length + p.capabilities.requires.length > 0).map((p) => packageGroup(p.name, p.capabilities));
    return c.json({ groups: [...stdlib, ...installed] });
  });

  app.post('/v1/blueprints', jsonBody(yamlBody), adminAudit(audit, 'blueprint_created'), (c) => {
    const { yaml } = bodyOf<z.infer<typeof yamlBody>>(c);
    let result: MutationResult;
    try {
      result = registry.create(yaml);
    } catch (error) {
      throw storeFailure(log, error);
    }
    if (!result.ok) {
      if (result.name) noteAdminAudit(c, { name: result.name });
      throw refusal(result);
    }
    noteAdminAudit(c, { name: result.blueprint.name, new_hash: result.blueprint.hash, old_hash: null });
    return c.json({ name: result.blueprint.name, hash: result.blueprint.hash });
  });

  app.get('/v1/blueprints/:name', (c) => {
    const name = c.req.param('name');
    const stored = registry.stored(name);
    if (!stored) throw notRegistered(name);
    return c.json({ name, yaml: stored.yaml, hash: stored.blueprint?.hash ?? null });
  });

  app.put('/v1/blueprints/:name', jsonBody(yamlBody), adminAudit(audit, 'blueprint_created'), (c) => {
    const name = c.req.param('name');
    const { yaml } = bodyOf<z.infer<typeof yamlBody>>(c);
    const existed = registry.stored(name) !== null;
    noteAdminAudit(c, { name }, existed ? 'blueprint_replaced' : 'blueprint_created');
    let result: MutationResult;
    try {
      result = registry.replace(name, yaml);
    } catch (error) {
      throw storeFailure(log, error);
    }
    if (!result.ok) throw refusal(result);
    noteAdminAudit(c, { name, new_hash: result.blueprint.hash, old_hash: result.oldHash }, existed ? 'blueprint_replaced' : 'blueprint_created');
    return c.json({ name, created: result.created, hash: result.blueprint.hash });
  });

  app.delete('/v1/blueprints/:name', adminAudit(audit, 'blueprint_deleted'), (c) => {
    const name = c.req.param('name');
    noteAdminAudit(c, { name });
    let removed: { oldHash: string | null } | undefined;
    try {
      removed = registry.delete(name, c.get('principal').name);
    } catch (error) {
      throw storeFailure(log, error);
    }
    if (!removed) throw notRegistered(name);
    noteAdminAudit(c, { name, old_hash: removed.oldHash });
    return c.json({ name });
  });
}
