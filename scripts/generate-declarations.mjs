// Writes sandbox/declarations/globals.d.ts (`npm run generate`); see scripts/declarations.ts.
import { writeFileSync } from 'node:fs';
import { tsImport } from 'tsx/esm/api';

const { globalsSource, GLOBALS_FILE } = await tsImport('./declarations.ts', import.meta.url);
writeFileSync(GLOBALS_FILE, globalsSource());
process.stdout.write(`wrote ${GLOBALS_FILE.pathname.split('/').slice(-3).join('/')}\n`);
