// Blueprint admin routes: register, replace, read, list and delete, with the documented
// error bodies and one `admin` audit record per mutation.
import type { Hono } from 'hono';
import { z } from '@hono/zod-openapi';
import type { AuditWriter, ServerLog } from '../../audit';
import { blueprintSummary, BlueprintStoreError, type BlueprintRegistry, type MutationFailure, type MutationResult } from '../../blueprints';
import type { CapabilityFile } from '../../packages';
import { capabilityCatalogue } from '../../policy';
import { adminAudit, noteAdminAudit } from '../admin-audit';
import { HttpError } from '../errors';
import { defineRoute, json, serve } from '../route';
import { BlueprintError, BlueprintList, BlueprintName, BlueprintRegistered, BlueprintReplaced, BlueprintStored, Capabilities, ErrorBody } from '../schemas';
import type { AppEnv } from '../types';

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

export const yamlBody = z.object({ yaml: z.string() }).openapi('BlueprintDocument');

const storeUnavailable = json(ErrorBody, 'Store unavailable');
export const blueprintRoutes = {
  create: defineRoute({ method: 'post', path: '/v1/blueprints', role: 'admin', tag: 'blueprints', summary: 'Register a Blueprint', body: yamlBody,
    responses: { 200: json(BlueprintRegistered, 'Registered'), 400: json(BlueprintError, 'Invalid document or refused registration'), 409: json(BlueprintError, '`already_exists`'), 500: storeUnavailable } }),
  list: defineRoute({ method: 'get', path: '/v1/blueprints', role: 'admin', tag: 'blueprints', summary: 'Usable Blueprints', responses: { 200: json(BlueprintList, 'Summaries, sorted by name') } }),
  read: defineRoute({ method: 'get', path: '/v1/blueprints/{name}', role: 'admin', tag: 'blueprints', summary: 'Stored text and hash', responses: { 200: json(BlueprintStored, 'Stored document'), 404: json(BlueprintError, '`not_found`') } }),
  replace: defineRoute({ method: 'put', path: '/v1/blueprints/{name}', role: 'admin', tag: 'blueprints', summary: 'Create or replace', body: yamlBody,
    responses: { 200: json(BlueprintReplaced, 'Created or replaced'), 400: json(BlueprintError, 'Invalid document, refused registration or `name_mismatch`'), 500: storeUnavailable } }),
  delete: defineRoute({ method: 'delete', path: '/v1/blueprints/{name}', role: 'admin', tag: 'blueprints', summary: 'Remove a Blueprint (ends its sessions)',
    responses: { 200: json(BlueprintName, 'Removed'), 404: json(BlueprintError, '`not_found`'), 500: storeUnavailable } }),
  capabilities: defineRoute({ method: 'get', path: '/v1/capabilities', role: 'admin', tag: 'blueprints', summary: 'Capability catalogue with filter fields', responses: { 200: json(Capabilities, 'Grouped by module') } }),
};

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

  serve(app, blueprintRoutes.list, (c) => c.json({ blueprints: registry.usable().map(blueprintSummary) }));

  // The capability catalogue, grouped by the module that provides each capability, then
  // one group per installed Package (those with neither provides nor requires are omitted).
  serve(app, blueprintRoutes.capabilities, (c) => {
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

  serve(app, blueprintRoutes.create, adminAudit(audit, 'blueprint_created'), (c, { body: { yaml } }) => {
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

  serve(app, blueprintRoutes.read, (c, { params: { name } }) => {
    const stored = registry.stored(name);
    if (!stored) throw notRegistered(name);
    return c.json({ name, yaml: stored.yaml, hash: stored.blueprint?.hash ?? null });
  });

  serve(app, blueprintRoutes.replace, adminAudit(audit, 'blueprint_created'), (c, { params: { name }, body: { yaml } }) => {
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

  serve(app, blueprintRoutes.delete, adminAudit(audit, 'blueprint_deleted'), (c, { params: { name } }) => {
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
