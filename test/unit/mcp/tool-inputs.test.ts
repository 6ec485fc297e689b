// The tool inputs are declared once (src/mcp/tool-inputs.ts): the MCP tools/list schemas
// and the argument check come from them, and the client's copy is the committed output of
// `npm run generate`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { CLIENT_TOOL_INPUTS_FILE, clientToolInputsSource } from '../../../scripts/tool-inputs';
import { checkArguments, TOOL_SCHEMAS } from '../../../src/mcp/tools';
import { MCP_TOOL_INPUTS } from '../../../src/mcp/tool-inputs';

test('the client copy of the tool inputs matches src/mcp/tool-inputs.ts', () => {
  assert.equal(fs.readFileSync(CLIENT_TOOL_INPUTS_FILE, 'utf8'), clientToolInputsSource(), 'clients/typescript/src/tool-inputs.ts is stale; run `npm run generate` and commit it');
});

test('every MCP tool schema is the JSON Schema of its zod declaration', () => {
  assert.deepEqual(Object.keys(TOOL_SCHEMAS).sort(), Object.keys(MCP_TOOL_INPUTS).sort());
  assert.deepEqual(TOOL_SCHEMAS.svc__typescript__execute.required, ['code']);
  assert.equal(TOOL_SCHEMAS.svc__typescript__execute.properties.code.description, MCP_TOOL_INPUTS.svc__typescript__execute.shape.code.description);
  for (const schema of Object.values(TOOL_SCHEMAS)) assert.equal(schema.additionalProperties, false);
});

test('arguments are coerced from text, then refused naming the field and what it accepts', () => {
  const message = (name: string, args: Record<string, unknown>) => {
    const checked = checkArguments(name, args);
    assert.ok(!checked.ok, JSON.stringify(args));
    return (checked.answer.structured as { error: { message: string } }).error.message;
  };
  assert.deepEqual(checkArguments('svc__files__read', { path: '/a', offset: '3', limit: null }), { ok: true, args: { path: '/a', offset: 3, limit: null } });
  assert.deepEqual(checkArguments('svc__files__list', { recursive: 'TRUE' }), { ok: true, args: { recursive: true } });
  assert.deepEqual(checkArguments('svc__typescript__builtins__docs', { names: 'Math.max' }), { ok: true, args: { names: ['Math.max'] } });
  assert.equal(message('svc__files__read', { path: '/a', offset: 0 }), 'svc__files__read: at $.offset: expected at least 1');
  assert.equal(message('svc__files__read', { path: '/a', limit: 5001 }), 'svc__files__read: at $.limit: expected at most 5000');
  assert.equal(message('svc__typescript__execute', { code: 42 }), 'svc__typescript__execute: at $.code: expected string, got number');
  assert.equal(message('svc__typescript__packages__docs', {}), 'svc__typescript__packages__docs: at $.name: required property is missing');
  assert.equal(message('svc__typescript__builtins__docs', { names: [] }), 'svc__typescript__builtins__docs: at $.names: expected at least 1 items, got 0');
  assert.equal(message('svc__typescript__execute', { code: '', blueprint: 'x' }), 'svc__typescript__execute: unknown argument `blueprint`; accepted: `code`');
});
