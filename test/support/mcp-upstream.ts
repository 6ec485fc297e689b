// A real upstream MCP server for tests: the official SDK's McpServer over Streamable HTTP
// on loopback HTTPS under a public-looking host name (a certificate from the test CA of
// test/support/stand-in.ts; the server under test reaches it through `network.hosts`).
// Tools are given as raw JSON Schemas (what real servers publish), tools/list pages when
// asked, and every HTTP request is recorded.
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import fs from 'node:fs';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { serverOptions, testCa, type StandIn } from './stand-in';
import { certificateFor } from './tls';

export interface UpstreamTool {
  name: string;
  description?: string;
  inputSchema?: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
  /** The tools/call result (content, structuredContent, isError); `signal` aborts when the client cancels the request or ends the session. */
  call?: (args: Record<string, unknown>, request: { signal: AbortSignal }) => Record<string, unknown> | Promise<Record<string, unknown>>;
}

export interface UpstreamRequest {
  method: string;
  authorization?: string;
  sessionId?: string;
  headers: Record<string, string | string[] | undefined>;
  /** JSON-RPC methods in the body (POST). */
  rpc: string[];
}

export interface McpUpstream {
  url: string;
  hosts: string[];
  port: number;
  requests: UpstreamRequest[];
  /** The first request at index `from` (default 0) or later that matches: one already received, or the next to arrive (an event, no polling). */
  requested(match: (request: UpstreamRequest) => boolean, from?: number): Promise<UpstreamRequest>;
  /** tools/call requests received, by tool name. */
  calls: Array<{ name: string; arguments: Record<string, unknown> }>;
  setTools(tools: UpstreamTool[]): void;
  /** Forgets every MCP session (later requests with their ids get 404), as a restarted server would. */
  forgetSessions(): void;
  /** Refuse every request with this status (null: serve normally). */
  failWith: number | null;
  close(): Promise<void>;
}

export interface UpstreamOptions {
  tools: UpstreamTool[];
  /** Stateless: never issues a session id. */
  stateless?: boolean;
  /** Tools per tools/list page (default: all on one page). */
  pageSize?: number;
  /** Only requests with this Authorization header are served (others get 401). */
  requireAuthorization?: string | (() => string);
  /** Public-looking host name the server plays (resolved to loopback through network.hosts). */
  host: string;
  /** Path of the MCP endpoint (default /mcp). */
  path?: string;
  /** Extra JSON documents served by GET (e.g. `/.well-known/oauth-protected-resource/mcp`). */
  documents?: Record<string, unknown>;
}

/** Args and env for `startServer` that let the server reach these upstreams by name. */
export function upstreamServerOptions(...upstreams: Array<{ hosts: string[] }>): { args: string[]; env: Record<string, string> } {
  return serverOptions(...upstreams.map((u) => ({ hosts: u.hosts })));
}

function buildServer(state: { tools: UpstreamTool[]; calls: McpUpstream['calls'] }, pageSize: number | undefined): McpServer {
  const mcp = new McpServer({ name: 'upstream-test', version: '1.0.0' });
  // Registering a tool declares the tools capability; the handlers below answer with raw schemas.
  mcp.registerTool('placeholder', { description: 'replaced' }, async () => ({ content: [] }));
  mcp.server.setRequestHandler(ListToolsRequestSchema, (request) => {
    const start = Number(request.params?.cursor ?? 0);
    const size = pageSize ?? state.tools.length;
    const page = state.tools.slice(start, start + size).map((t) => ({
      name: t.name,
      ...(t.description ? { description: t.description } : {}),
      inputSchema: t.inputSchema ?? { type: 'object' },
      ...(t.outputSchema ? { outputSchema: t.outputSchema } : {}),
    }));
    return { tools: page, ...(start + size < state.tools.length ? { nextCursor: String(start + size) } : {}) };
  });
  mcp.server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const args = (request.params.arguments ?? {}) as Record<string, unknown>;
    state.calls.push({ name: request.params.name, arguments: args });
    const tool = state.tools.find((t) => t.name === request.params.name);
    if (!tool) return { content: [{ type: 'text', text: `no tool ${request.params.name}` }], isError: true };
    return (tool.call ? await tool.call(args, { signal: extra.signal }) : { content: [{ type: 'text', text: JSON.stringify({ echo: args }) }] }) as never;
  });
  return mcp;
}

export async function startMcpUpstream(options: UpstreamOptions): Promise<McpUpstream> {
  const { certFile, keyFile } = certificateFor(testCa(), [options.host], `mcp-${options.host}`);
  const state = { tools: options.tools, calls: [] as McpUpstream['calls'] };
  const requests: UpstreamRequest[] = [];
  const waiters: Array<{ match: (request: UpstreamRequest) => boolean; resolve: (request: UpstreamRequest) => void }> = [];
  const record = (request: UpstreamRequest) => {
    requests.push(request);
    for (const waiter of waiters.filter((w) => w.match(request))) {
      waiters.splice(waiters.indexOf(waiter), 1);
      waiter.resolve(request);
    }
  };
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const endpoint = options.path ?? '/mcp';
  const upstream: McpUpstream = {
    url: '',
    hosts: [options.host],
    port: 0,
    requests,
    requested: (match, from = 0) =>
      new Promise((resolve) => {
        const found = requests.slice(from).find(match);
        if (found) resolve(found);
        else waiters.push({ match, resolve });
      }),
    calls: state.calls,
    failWith: null,
    setTools: (tools) => {
      state.tools = tools;
    },
    forgetSessions: () => sessions.clear(),
    close: async () => {
      for (const t of sessions.values()) await t.close().catch(() => undefined);
      await new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections?.();
    },
  };
  const server = https.createServer({ cert: fs.readFileSync(certFile), key: fs.readFileSync(keyFile) }, async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    let body: unknown;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      body = undefined;
    }
    const rpc = (Array.isArray(body) ? body : body ? [body] : []).map((m: { method?: string }) => m?.method ?? 'response');
    const sessionId = req.headers['mcp-session-id'] as string | undefined;
    record({ method: req.method ?? '', authorization: req.headers.authorization, sessionId, headers: { ...req.headers }, rpc });
    const document = options.documents?.[(req.url ?? '').split('?')[0]];
    if (req.method === 'GET' && document !== undefined) {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(document));
      return;
    }
    if ((req.url ?? '').split('?')[0] !== endpoint) {
      res.writeHead(404).end('not found');
      return;
    }
    if (upstream.failWith !== null) {
      res.writeHead(upstream.failWith, { 'content-type': 'text/plain' }).end(`upstream refuses with ${upstream.failWith}`);
      return;
    }
    const required = typeof options.requireAuthorization === 'function' ? options.requireAuthorization() : options.requireAuthorization;
    if (required !== undefined && req.headers.authorization !== required) {
      res.writeHead(401, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'invalid_token' }));
      return;
    }
    if (options.stateless) {
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      const mcp = buildServer(state, options.pageSize);
      await mcp.connect(transport);
      res.on('close', () => void transport.close());
      await transport.handleRequest(req, res, body);
      return;
    }
    let transport = sessionId ? sessions.get(sessionId) : undefined;
    if (!transport) {
      if (sessionId || req.method !== 'POST') {
        res.writeHead(404).end('unknown session');
        return;
      }
      const created: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => `up-${Math.random().toString(36).slice(2)}`,
        enableJsonResponse: true,
        onsessioninitialized: (id) => void sessions.set(id, created),
      });
      created.onclose = () => {
        if (created.sessionId) sessions.delete(created.sessionId);
      };
      await buildServer(state, options.pageSize).connect(created);
      transport = created;
    }
    await transport.handleRequest(req, res, body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  upstream.port = port;
  upstream.url = `https://${options.host}:${port}${endpoint}`;
  return upstream;
}
