// JSON Schema to TypeScript, tool naming rules and the warnings they produce, and result
// mapping.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { catalogueTools, describeTool, isNamedExport, mapResult, renderDeclarations, schemaType } from '../../../src/mcp/client';

test('schema to type: every supported schema form', () => {
  const cases: Array<[unknown, string]> = [
    [{ type: 'string' }, 'string'],
    [{ type: 'string', enum: ['a', 'b'] }, '"a" | "b"'],
    [{ type: 'string', enum: ['only'] }, 'string'],
    [{ type: 'number' }, 'number'],
    [{ type: 'integer' }, 'number'],
    [{ type: 'boolean' }, 'boolean'],
    [{ type: 'null' }, 'null'],
    [{ type: 'array', items: { type: 'string' } }, 'string[]'],
    [{ type: 'array', items: { type: ['string', 'null'] } }, '(string | null)[]'],
    [{ type: 'array' }, 'unknown[]'],
    [{ type: 'object', properties: { a: { type: 'string' }, 'b-c': { type: 'number' } }, required: ['a'] }, '{ a: string; "b-c"?: number }'],
    [{ properties: { a: { type: 'boolean' } } }, '{ a?: boolean }'],
    [{ type: 'object' }, '{ [key: string]: unknown }'],
    [{ type: ['string', 'null'] }, 'string | null'],
    [{ anyOf: [{ type: 'string' }, { type: 'integer' }] }, 'string | number'],
    [{ oneOf: [{ type: 'string' }, { type: 'null' }] }, 'string | null'],
    [{ allOf: [{ type: 'string' }] }, 'unknown'],
    [{ $ref: '#/defs/x' }, 'unknown'],
    [{ not: { type: 'string' } }, 'unknown'],
    [{ enum: [1, 2] }, 'unknown'],
    [{ anyOf: [{ type: 'object' }, { type: 'string' }] }, 'unknown'],
    [{ type: ['object', 'null'] }, 'unknown'],
    [{}, 'unknown'],
  ];
  for (const [schema, expected] of cases) assert.equal(schemaType(schema).text, expected, JSON.stringify(schema));
});

test('schema to type: nesting past depth 12 becomes unknown', () => {
  let schema: Record<string, unknown> = { type: 'string' };
  for (let i = 0; i < 14; i++) schema = { type: 'array', items: schema };
  assert.ok(schemaType(schema).text.startsWith('unknown'));
  assert.equal(schemaType(schema).lossy, true);
});

test('parameters: required properties give args, none required give args?, no properties give an optional argument object', () => {
  assert.equal(describeTool({ name: 't', inputSchema: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] } }).parameters, '(args: { id: string })');
  assert.equal(describeTool({ name: 't', inputSchema: { type: 'object', properties: { n: { type: 'number' } } } }).parameters, '(args?: { n?: number })');
  assert.equal(describeTool({ name: 't', inputSchema: { type: 'object' } }).parameters, '(args?: Record<string, unknown>)');
  assert.equal(describeTool({ name: 't', inputSchema: { type: 'object', additionalProperties: false } }).parameters, '(args?: Record<string, never>)');
  assert.equal(describeTool({ name: 't' }).parameters, '(args?: Record<string, unknown>)');
});

test('names: identifiers are named exports; reserved words and other names are degraded; duplicates are both dropped', () => {
  for (const name of ['get_issue', '$x', '_a1']) assert.equal(isNamedExport(name), true, name);
  for (const name of ['create-issue', '1abc', 'delete', 'await', 'eval', 'arguments', 'let', 'static', 'package', 'class', '__esModule', '']) assert.equal(isNamedExport(name), false, name);
  const { tools, warnings } = catalogueTools('srv', [{ name: 'a' }, { name: 'delete' }, { name: 'b' }, { name: 'b' }]);
  assert.deepEqual(tools.map((t) => [t.name, t.named]), [['a', true], ['delete', false]]);
  assert.deepEqual(warnings, [
    "@mcp/srv: tool 'b' dropped: the server lists 2 tools with this name",
    `@mcp/srv: tool 'delete' is not a usable identifier: call it through the default import as srv["delete"](args)`,
    '@mcp/srv: 2 tools return unknown (output schemas missing or not representable); consult the docs',
  ]);
  const rendered = renderDeclarations('srv', tools);
  assert.ok(rendered.includes('  export function a(args?: Record<string, unknown>): unknown;'));
  assert.ok(rendered.includes('    "delete": (args?: Record<string, unknown>) => unknown;'));
  assert.ok(!rendered.includes('export function delete'));
});

test('output schemas: representable ones type the result; others say why it is unknown', () => {
  assert.equal(describeTool({ name: 't', outputSchema: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] } }).returns, '{ id: string }');
  const bad = describeTool({ name: 't', outputSchema: { type: 'object', properties: { x: { $ref: '#/a' } } } });
  assert.equal(bad.returns, 'unknown');
  assert.match(bad.resultNote, /not representable/);
  assert.match(describeTool({ name: 't' }).resultNote, /publishes no output schema/);
});

test('result mapping: structured content, one JSON text, one plain text, several texts, none, other kinds ignored', () => {
  assert.deepEqual(mapResult({ structuredContent: { a: 1 }, content: [{ type: 'text', text: 'x' }] }).value, { a: 1 });
  assert.deepEqual(mapResult({ content: [{ type: 'text', text: '[1,2]' }] }).value, [1, 2]);
  assert.equal(mapResult({ content: [{ type: 'text', text: 'hello' }] }).value, 'hello');
  assert.equal(mapResult({ content: [{ type: 'text', text: '1' }, { type: 'image' }, { type: 'text', text: '2' }] }).value, '1\n2');
  assert.equal(mapResult({ content: [{ type: 'image' }] }).value, null);
  assert.equal(mapResult({}).value, null);
});
