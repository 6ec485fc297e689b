// The TypeScript client's wire types, generated with openapi-typescript from the OpenAPI
// document the route declarations produce (src/http). scripts/generate-client-types.mjs
// writes them to clients/typescript/src/openapi-types.ts; a test fails when the committed
// file differs from what the current declarations produce.
import { readFileSync } from 'node:fs';
import openapiTS, { astToString } from 'openapi-typescript';
import { openApiDocument } from '../src/http/openapi';
import { apiRoutes } from '../src/http/route-table';

export const CLIENT_TYPES_FILE = new URL('../clients/typescript/src/openapi-types.ts', import.meta.url);

const HEADER = `// Generated from svc's OpenAPI document by scripts/generate-client-types.mjs (\`npm run generate\`):
// do not edit. The friendly names are in types.ts.

`;

export async function clientTypesSource(): Promise<string> {
  const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };
  const document = openApiDocument(version, apiRoutes);
  const ast = await openapiTS(document as never);
  return HEADER + astToString(ast);
}
