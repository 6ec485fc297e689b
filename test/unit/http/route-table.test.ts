// The route table is the one list of routes: every route hono serves is either in the
// OpenAPI document or declared outside it (`hidden`), and every documented declaration is
// served. A handler mounted beside the table, or a declaration nobody serves, fails here.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Hono } from 'hono';
import { openApiDocument } from '../../../src/http/openapi';
import { servedRoutes } from '../../../src/http/route';
import { apiRoutes, mountRoutes, type RouteDependencies } from '../../../src/http/route-table';
import type { AppEnv } from '../../../src/http/types';

/** Mounting only keeps the dependencies for the handlers: an empty object stands in for each group's. */
const placeholders = new Proxy({}, { get: () => ({}) }) as RouteDependencies;

function servedApp(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  mountRoutes(app, placeholders);
  return app;
}

/** `METHOD path` in the document's form (`{name}`), from hono's pattern through the declarations. */
function documentKey(method: string, honoPath: string): string {
  const declared = apiRoutes.find((route) => route.honoPath === honoPath && (route.method === 'all' || route.method.toUpperCase() === method));
  return declared ? `${declared.method.toUpperCase()} ${declared.path}` : `${method} ${honoPath} (not declared)`;
}

/** Routes hono serves that are neither in the app's OpenAPI document nor declared hidden. */
function undocumented(app: Hono<AppEnv>): string[] {
  const document = openApiDocument('0.0.0', servedRoutes(app)) as { paths: Record<string, Record<string, unknown>> };
  const documented = new Set(Object.entries(document.paths).flatMap(([path, operations]) => Object.keys(operations).map((method) => `${method.toUpperCase()} ${path}`)));
  const hidden = new Set(apiRoutes.filter((route) => 'hidden' in route).map((route) => `${route.method.toUpperCase()} ${route.path}`));
  return app.routes.map((route) => documentKey(route.method, route.path)).filter((key) => !documented.has(key) && !hidden.has(key));
}

test('every route hono serves is in the OpenAPI document or declared hidden', () => {
  const app = servedApp();
  assert.ok(app.routes.length > 30, `${app.routes.length} routes served`);
  assert.deepEqual(undocumented(app), [], 'served but neither documented nor declared hidden');
});

test('every declared route is served, so the document lists each documented one (GET /v1/volumes included)', () => {
  const app = servedApp();
  const served = new Set(servedRoutes(app));
  const unserved = apiRoutes.filter((route) => !served.has(route)).map((route) => `${route.method} ${route.path}`);
  assert.deepEqual(unserved, []);
  const document = openApiDocument('0.0.0', servedRoutes(app)) as { paths: Record<string, Record<string, unknown>> };
  assert.ok(document.paths['/v1/volumes']?.get, 'GET /v1/volumes is documented');
});

test('a handler mounted beside the route table is caught', () => {
  const app = servedApp();
  app.get('/v1/undeclared', (c) => c.text('x'));
  assert.deepEqual(undocumented(app), ['GET /v1/undeclared (not declared)']);
});
