// Helpers shared by the session integration tests: register a Blueprint, open a session,
// execute in it, find its per-session directory, and two small file programs.
import assert from 'node:assert/strict';
import path from 'node:path';
import type { TestServer } from '../harness';

export const WRITE_NOTE = 'import * as fs from "svc:fs";\nexport function main() { fs.writeText("note.txt", "remember me"); console.log("wrote"); return fs.cwd(); }';
export const READ_NOTE = 'import * as fs from "svc:fs";\nexport function main() { return fs.exists("note.txt") ? fs.readText("note.txt") : undefined; }';

export async function registerBlueprint(server: TestServer, yaml: string): Promise<void> {
  const reply = await server.request('POST', '/v1/blueprints', { body: { yaml } });
  assert.ok(reply.status < 300, `blueprint registration failed: ${reply.status} ${reply.text}`);
}

export async function openSession(server: TestServer, body: Record<string, unknown>): Promise<string> {
  const reply = await server.request('POST', '/v1/sessions', { token: server.userToken, body });
  assert.equal(reply.status, 200, reply.text);
  assert.equal(reply.headers.get('mcp-session-id'), reply.json.session_id);
  return reply.json.session_id;
}

export function execute(server: TestServer, sessionId: string, code: string, headers: Record<string, string> = {}) {
  return server.request('POST', `/v1/sessions/${sessionId}/execute`, { token: server.userToken, body: { code }, headers });
}

export function sessionDir(server: TestServer, sessionId: string): string {
  return path.join(server.home, 'server', 'vfs', 'sessions', sessionId);
}
