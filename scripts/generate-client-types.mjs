// Writes clients/typescript/src/openapi-types.ts from the server's route declarations
// (`npm run generate`); see scripts/client-types.ts.
import { writeFileSync } from 'node:fs';
import { tsImport } from 'tsx/esm/api';

const { clientTypesSource, CLIENT_TYPES_FILE } = await tsImport('./client-types.ts', import.meta.url);
writeFileSync(CLIENT_TYPES_FILE, await clientTypesSource());
process.stdout.write(`wrote ${CLIENT_TYPES_FILE.pathname.split('/').slice(-4).join('/')}\n`);
