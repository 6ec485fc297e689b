// Blueprint discovery for harnesses: the prompt object, package
// search and docs, built-ins list and docs. Unregistered Blueprints answer 404 not_found.
import { z } from '@hono/zod-openapi';
import type { Context, Hono } from 'hono';
import type { Blueprint, BlueprintRegistry } from '../../blueprints';
import { BUILTIN_FUNCTIONS, BUILTIN_NAMESPACES, BUILTIN_TYPES, builtinsDocs, executePrompt, lookupCounters, packageDocs, REST_TOOL_NAMES, searchPackages, toolDescriptions, type RegistryLookup, type McpPackageView } from '../../discovery';
import type { HostModule } from '../../stdlib';
import { HttpError } from '../errors';
import { defineRoute, json, serve } from '../route';
import { BuiltinsDocs, BuiltinsList, DiscoveryError, PackageDocs, PackageSearch, Prompt } from '../schemas';
import type { AppEnv } from '../types';

export interface DiscoveryRouteDependencies {
  registry: BlueprintRegistry;
  modules: ReadonlyMap<string, HostModule>;
  /** The Blueprint's installed Packages (search `registry` entries, Markdown docs). */
  packages?: RegistryLookup;
  /** `@mcp/` Packages without a session (servers needing harness secrets are unavailable here). */
  mcpViews?: (blueprint: Blueprint, only?: string) => Promise<McpPackageView[]>;
}

function withBlueprint(deps: DiscoveryRouteDependencies, c: Context<AppEnv>, answer: (b: Blueprint) => Response | Promise<Response>) {
  const name = c.req.param('name') ?? '';
  const blueprint = deps.registry.get(name);
  if (!blueprint) throw HttpError.of(404, 'not_found', `blueprint '${name}' is not registered`, { name });
  return answer(blueprint);
}

const notRegistered = json(DiscoveryError, 'Blueprint not registered (`not_found`)');
const described = <T extends z.ZodType>(schema: T, description: string) => schema.openapi({ param: { description } });

export const discoveryRoutes = {
  prompt: defineRoute({ method: 'get', path: '/v1/blueprints/{name}/prompt', role: 'user', tag: 'discovery', summary: 'Execute-tool description and the other tool descriptions', responses: { 200: json(Prompt, 'Prompt'), 404: notRegistered } }),
  search: defineRoute({ method: 'get', path: '/v1/blueprints/{name}/packages/search', role: 'user', tag: 'discovery', summary: 'Search modules and Packages',
    query: z.object({ q: described(z.string().optional(), 'Substring of names, descriptions and exported symbols; empty lists everything') }),
    responses: { 200: json(PackageSearch, 'Hits, or the catalogue when nothing matched'), 404: notRegistered } }),
  docs: defineRoute({ method: 'get', path: '/v1/blueprints/{name}/packages/docs', role: 'user', tag: 'discovery', summary: 'A module\'s or Package\'s declarations',
    query: z.object({ name: described(z.string(), 'Module, Package or built-in name') }),
    responses: { 200: { ...json(PackageDocs, 'JSON for a standard-library module or built-in; Markdown (documentation, then declarations) for an installed or @mcp/ Package'), orMarkdown: true }, 404: json(DiscoveryError, '`not_found`, `unknown_package` (with `did_you_mean`) or `unknown_mcp_server`') } }),
  builtins: defineRoute({ method: 'get', path: '/v1/blueprints/{name}/builtins', role: 'user', tag: 'discovery', summary: 'Built-ins in scope without import', responses: { 200: json(BuiltinsList, 'Namespaces and types'), 404: notRegistered } }),
  builtinsDocs: defineRoute({ method: 'get', path: '/v1/blueprints/{name}/builtins/docs', role: 'user', tag: 'discovery', summary: 'Declarations of built-ins',
    query: z.object({ name: z.array(z.string()).openapi({ param: { description: 'A built-in, e.g. `Math.max`; repeat for several', style: 'form', explode: true } }) }),
    responses: { 200: json(BuiltinsDocs, 'One entry per name, in request order'), 404: notRegistered } }),
};

export function mountDiscoveryRoutes(app: Hono<AppEnv>, deps: DiscoveryRouteDependencies): void {
  serve(app, discoveryRoutes.prompt, (c) =>
    withBlueprint(deps, c, (b) => c.json({ name: b.name, prompt: executePrompt(b, REST_TOOL_NAMES), tools: toolDescriptions(REST_TOOL_NAMES) })),
  );

  serve(app, discoveryRoutes.search, (c) =>
    withBlueprint(deps, c, async (b) => c.json(searchPackages(b, deps.modules, c.req.query('q') ?? '', `built-ins need no import: GET /v1/blueprints/${b.name}/builtins`, deps.packages, (await deps.mcpViews?.(b)) ?? []))),
  );

  serve(app, discoveryRoutes.docs, (c) =>
    withBlueprint(deps, c, async (b) => {
      const name = c.req.query('name')!;
      const answer = packageDocs(b, deps.modules, name, deps.packages, name.startsWith('@mcp/') ? ((await deps.mcpViews?.(b, name.slice(5))) ?? []) : []);
      if (answer.kind === 'markdown') return c.body(answer.text, 200, { 'content-type': 'text/markdown; charset=utf-8' });
      return answer.kind === 'json' ? c.json(answer.body) : c.json(answer.body, 404);
    }),
  );

  serve(app, discoveryRoutes.builtins, (c) =>
    withBlueprint(deps, c, () => {
      lookupCounters.builtins_list++;
      return c.json({ namespaces: BUILTIN_NAMESPACES, types: BUILTIN_TYPES, functions: BUILTIN_FUNCTIONS });
    }),
  );

  serve(app, discoveryRoutes.builtinsDocs, (c) =>
    withBlueprint(deps, c, (b) => c.json(builtinsDocs(b, deps.modules, c.req.queries('name') ?? [], `GET /v1/blueprints/${b.name}/packages/docs`))),
  );
}
