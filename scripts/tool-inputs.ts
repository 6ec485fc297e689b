// The TypeScript client's copy of the tool inputs: src/mcp/tool-inputs.ts (which imports
// only zod) with a header. scripts/generate-tool-inputs.mjs writes it; a test fails when the
// committed copy differs.
import { readFileSync } from 'node:fs';

export const TOOL_INPUTS_SOURCE = new URL('../src/mcp/tool-inputs.ts', import.meta.url);
export const CLIENT_TOOL_INPUTS_FILE = new URL('../clients/typescript/src/tool-inputs.ts', import.meta.url);

const HEADER = `// Copied from the server's src/mcp/tool-inputs.ts by scripts/generate-tool-inputs.mjs
// (\`npm run generate\`): do not edit here.
`;

export function clientToolInputsSource(): string {
  return HEADER + readFileSync(TOOL_INPUTS_SOURCE, 'utf8');
}
