// One route, declared once: its method, path, request and response schemas, the role it
// needs and its documentation. The same declaration mounts the handlers (`serve`, with the
// body and query checks it implies, handing the endpoint its body and path parameters typed
// from the declaration), gives authentication the path's role (route-table.ts) and becomes
// an operation of GET /v1/openapi.json (openapi.ts, through @hono/zod-openapi).
import { createRoute, z, type RouteConfig } from '@hono/zod-openapi';
import type { Context, Handler, Hono, MiddlewareHandler } from 'hono';
import { ErrorBody } from './schemas';
import type { AppEnv, RouteRole } from './types';
import { jsonBody, requireQuery } from './validation';

export type Method = 'get' | 'post' | 'put' | 'delete';
export type Tag = 'ops' | 'sessions' | 'runs' | 'discovery' | 'blueprints' | 'secrets' | 'packages' | 'mcp' | 'approvals';
export const TAGS: readonly Tag[] = ['ops', 'sessions', 'runs', 'discovery', 'blueprints', 'secrets', 'packages', 'mcp', 'approvals'];

/** A documented answer: a JSON schema (named with `.openapi(name)`), any JSON object, Markdown, or no body. */
export type Answer = { schema: z.ZodType; description: string; orMarkdown?: boolean } | { object: string } | { markdown: string } | { empty: string };

export const json = (schema: z.ZodType, description: string): Answer => ({ schema, description });

interface DocumentedRoute {
  method: Method;
  /** The OpenAPI path template, e.g. `/v1/sessions/{session_id}`; hono's `:session_id` is derived. */
  path: string;
  role: Exclude<RouteRole, 'none'>;
  tag: Tag;
  summary: string;
  /** The JSON body: checked by `jsonBody` before the handlers (415, 400, 413, 422 in plain text). */
  body?: z.ZodType;
  /** Query parameters; those that are not optional are required (400 in plain text when absent). */
  query?: z.ZodObject;
  /** Request headers the route reads (documented only; the handler checks them). */
  headers?: z.ZodObject;
  /** Headers of the 200 answer, by name: their description. */
  responseHeaders?: Record<string, string>;
  responses: Record<number, Answer>;
  /** The last path parameter spans segments (`/` allowed in it): mounted as `*`. */
  rest?: boolean;
  /** hono's name of a path parameter where it differs from the document's (the route pattern is a metrics label). */
  routeParams?: Record<string, string>;
}

/** Routes served outside the document: liveness, metrics, the MCP endpoint. */
interface UndocumentedRoute {
  method: Method | 'all';
  path: string;
  role: RouteRole;
  hidden: true;
}

export type RouteSpec = DocumentedRoute | UndocumentedRoute;

/** A declared route: the spec, hono's path and, when documented, its OpenAPI operation. */
export type ApiRoute<S extends RouteSpec = RouteSpec> = S & { honoPath: string; operation: RouteConfig | null };

/**
 * A route file's part of the API: its declarations and the function that mounts their
 * handlers, given what that file needs from the composition root. route-table.ts lists
 * every group once; the role table, the OpenAPI document and the mounting derive from it.
 */
export interface RouteGroup<Dependencies> {
  routes: Readonly<Record<string, ApiRoute>>;
  mount: (app: Hono<AppEnv>, dependencies: Dependencies) => void;
}

export function defineRoute<const S extends RouteSpec>(spec: S): ApiRoute<S> {
  const rest = 'rest' in spec && spec.rest === true;
  const renamed = ('routeParams' in spec && spec.routeParams) || {};
  const honoPath = (rest ? spec.path.replace(/\/\{\w+\}$/, '/*') : spec.path).replace(/\{(\w+)\}/g, (_, name: string) => `:${renamed[name] ?? name}`);
  return { ...spec, honoPath, operation: 'hidden' in spec ? null : operationOf(spec) };
}

const text = { 'text/plain': { schema: { type: 'string' as const } } };
const markdown = { 'text/markdown': { schema: { type: 'string' as const } } };
const textAnswer = (description: string): OpenApiResponse => ({ description, content: text });

/** An OpenAPI response as built here (content schemas are zod or plain JSON Schema). */
interface OpenApiResponse {
  description: string;
  content?: Record<string, { schema: unknown }>;
  headers?: Record<string, unknown>;
}

function answer(a: Answer): OpenApiResponse {
  if ('schema' in a) return { description: a.description, content: { 'application/json': { schema: a.schema }, ...(a.orMarkdown ? markdown : {}) } };
  if ('object' in a) return { description: a.object, content: { 'application/json': { schema: { type: 'object' as const } } } };
  if ('markdown' in a) return { description: a.markdown, content: markdown };
  return { description: a.empty };
}

/** Query parameters that must be present. */
function requiredQuery(query: z.ZodObject | undefined): string[] {
  if (!query) return [];
  return Object.entries(query.shape)
    .filter(([, schema]) => !(schema as z.ZodType).safeParse(undefined).success)
    .map(([name]) => name);
}

function operationOf(route: DocumentedRoute): RouteConfig {
  const responses: Record<string, OpenApiResponse> = {};
  for (const [status, a] of Object.entries(route.responses)) responses[status] = answer(a);
  if (route.responseHeaders && responses['200']) {
    responses['200'].headers = Object.fromEntries(Object.entries(route.responseHeaders).map(([name, description]) => [name, { description, schema: { type: 'string' } }]));
  }
  // Refusals before the endpoint runs (plain text), then authentication.
  const plain400 = (why: string) => {
    const existing = responses['400'];
    if (!existing) responses['400'] = textAnswer(why);
    else existing.content = { ...existing.content, ...text };
  };
  if (route.body) {
    plain400('Body is not JSON');
    responses['413'] = textAnswer('Body over 2 MiB');
    responses['415'] = textAnswer('`Content-Type: application/json` absent');
    responses['422'] = textAnswer('JSON of the wrong shape; the message names the field');
  } else if (requiredQuery(route.query).length > 0) {
    plain400('Required query parameter missing');
  }
  responses['401'] = { description: 'Missing or unknown token', headers: { 'WWW-Authenticate': { schema: { type: 'string', const: 'Bearer' } } }, content: { 'application/json': { schema: ErrorBody } } };
  if (route.role === 'admin') responses['403'] = { description: 'A `user` token on an admin route', content: { 'application/json': { schema: ErrorBody } } };
  responses['503'] ??= textAnswer('The server is shutting down');

  const pathNames = [...route.path.matchAll(/\{(\w+)\}/g)].map(([, name]) => name);
  const params = pathNames.length > 0 ? z.object(Object.fromEntries(pathNames.map((name) => [name, z.string()]))) : undefined;
  return createRoute({
    method: route.method,
    path: route.path,
    operationId: `${route.method}${route.path.replace(/\{(\w+)\}/g, (_, p: string) => `By_${p}`).replace(/[^A-Za-z0-9_]+(.)?/g, (_, c?: string) => (c ? c.toUpperCase() : ''))}`,
    summary: route.summary,
    tags: [route.tag],
    'x-svc-role': route.role,
    request: {
      ...(params ? { params } : {}),
      ...(route.query ? { query: route.query } : {}),
      ...(route.headers ? { headers: route.headers } : {}),
      ...(route.body ? { body: { required: true, content: { 'application/json': { schema: route.body } } } } : {}),
    },
    responses: responses as RouteConfig['responses'],
  });
}

/** The routes mounted on each app, in mount order (the document lists what is served). */
const mounted = new WeakMap<object, ApiRoute[]>();

export function servedRoutes(app: object): readonly ApiRoute[] {
  return mounted.get(app) ?? [];
}

/** The names of a path template's `{parameters}`. */
type PathNames<P> = P extends `${string}{${infer Name}}${infer Rest}` ? Name | PathNames<Rest> : never;

/** What an endpoint receives from its declaration: the checked body and the path parameters by their documented names. */
export interface EndpointInput<R extends RouteSpec> {
  params: { [Name in PathNames<R['path']>]: string };
  body: R extends { body: infer Body extends z.ZodType } ? z.output<Body> : undefined;
}

/** The last handler of a route: answers the request from its typed input. */
export type Endpoint<R extends RouteSpec> = (c: Context<AppEnv>, input: EndpointInput<R>) => ReturnType<Handler<AppEnv>>;

/** A `rest` parameter spans segments: the remainder of the path, percent-decoded (kept raw when it does not decode). */
function restValue(pathname: string, route: ApiRoute): string {
  const raw = pathname.slice(route.path.replace(/\{\w+\}$/, '').length);
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

/** Reads an endpoint's input from the request: the path parameters by their documented names, the checked body. */
function inputReader(route: ApiRoute): (c: Context<AppEnv>) => EndpointInput<RouteSpec> {
  const renamed = ('routeParams' in route && route.routeParams) || {};
  const names = [...route.path.matchAll(/\{(\w+)\}/g)].map(([, name]) => name);
  const rest = 'rest' in route && route.rest === true ? names.pop() : undefined;
  return (c) => {
    const params: Record<string, string> = {};
    for (const name of names) params[name] = c.req.param(renamed[name] ?? name) ?? '';
    if (rest !== undefined) params[rest] = restValue(new URL(c.req.url).pathname, route);
    return { params, body: c.get('body') } as EndpointInput<RouteSpec>;
  };
}

/**
 * Mounts a declared route: the body check and required-query check its declaration implies,
 * then the handlers (middleware first, the endpoint last, given its typed input).
 */
export function serve<R extends ApiRoute>(app: Hono<AppEnv>, route: R, ...handlers: [...MiddlewareHandler<AppEnv>[], Endpoint<R>]): void {
  const checks: Array<MiddlewareHandler<AppEnv> | Handler<AppEnv>> = [];
  if ('body' in route && route.body) checks.push(jsonBody(route.body));
  const required = 'query' in route ? requiredQuery(route.query) : [];
  if (required.length > 0) checks.push(requireQuery(...required));
  const middleware = handlers.slice(0, -1) as MiddlewareHandler<AppEnv>[];
  const endpoint = handlers[handlers.length - 1] as Endpoint<RouteSpec>;
  const input = inputReader(route);
  const answer: Handler<AppEnv> = (c) => endpoint(c, input(c));
  const chain: Array<MiddlewareHandler<AppEnv> | Handler<AppEnv>> = [...checks, ...middleware, answer];
  const all = chain as [Handler<AppEnv>, ...Handler<AppEnv>[]];
  if (route.method === 'all') app.all(route.honoPath, ...all);
  else app.on(route.method.toUpperCase(), route.honoPath, ...all);
  const list = mounted.get(app) ?? [];
  list.push(route);
  mounted.set(app, list);
}
