// Blueprint discovery for harnesses: the prompt object, package
// search and docs, built-ins list and docs. Unregistered Blueprints answer 404 not_found.
import type { Context, Hono } from 'hono';
import type { Blueprint, BlueprintRegistry } from '../../blueprints';
import { BUILTIN_FUNCTIONS, BUILTIN_NAMESPACES, BUILTIN_TYPES, builtinsDocs, executePrompt, lookupCounters, packageDocs, REST_TOOL_NAMES, searchPackages, toolDescriptions, type RegistryLookup, type McpPackageView } from '../../discovery';
import type { HostModule } from '../../stdlib';
import { HttpError } from '../errors';
import type { AppEnv } from '../types';
import { requireQuery } from '../validation';

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

export function mountDiscoveryRoutes(app: Hono<AppEnv>, deps: DiscoveryRouteDependencies): void {
  app.get('/v1/blueprints/:name/prompt', (c) =>
    withBlueprint(deps, c, (b) => c.json({ name: b.name, prompt: executePrompt(b, REST_TOOL_NAMES), tools: toolDescriptions(REST_TOOL_NAMES) })),
  );

  app.get('/v1/blueprints/:name/packages/search', (c) =>
    withBlueprint(deps, c, async (b) => c.json(searchPackages(b, deps.modules, c.req.query('q') ?? '', `built-ins need no import: GET /v1/blueprints/${b.name}/builtins`, deps.packages, (await deps.mcpViews?.(b)) ?? []))),
  );

  app.get('/v1/blueprints/:name/packages/docs', requireQuery('name'), (c) =>
    withBlueprint(deps, c, async (b) => {
      const name = c.req.query('name')!;
      const answer = packageDocs(b, deps.modules, name, deps.packages, name.startsWith('@mcp/') ? ((await deps.mcpViews?.(b, name.slice(5))) ?? []) : []);
      if (answer.kind === 'markdown') return c.body(answer.text, 200, { 'content-type': 'text/markdown; charset=utf-8' });
      return answer.kind === 'json' ? c.json(answer.body) : c.json(answer.body, 404);
    }),
  );

  app.get('/v1/blueprints/:name/builtins', (c) =>
    withBlueprint(deps, c, () => {
      lookupCounters.builtins_list++;
      return c.json({ namespaces: BUILTIN_NAMESPACES, types: BUILTIN_TYPES, functions: BUILTIN_FUNCTIONS });
    }),
  );

  app.get('/v1/blueprints/:name/builtins/docs', requireQuery('name'), (c) =>
    withBlueprint(deps, c, (b) => c.json(builtinsDocs(b, deps.modules, c.req.queries('name') ?? [], `GET /v1/blueprints/${b.name}/packages/docs`))),
  );
}
