// Writes clients/typescript/src/tool-inputs.ts from src/mcp/tool-inputs.ts (`npm run generate`);
// see scripts/tool-inputs.ts.
import { writeFileSync } from 'node:fs';
import { tsImport } from 'tsx/esm/api';

const { clientToolInputsSource, CLIENT_TOOL_INPUTS_FILE } = await tsImport('./tool-inputs.ts', import.meta.url);
writeFileSync(CLIENT_TOOL_INPUTS_FILE, clientToolInputsSource());
process.stdout.write(`wrote ${CLIENT_TOOL_INPUTS_FILE.pathname.split('/').slice(-4).join('/')}\n`);
