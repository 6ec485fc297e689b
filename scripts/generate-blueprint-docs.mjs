// Writes docs/blueprints.md's key tables and docs/blueprint.schema.json from the Blueprint
// schema (`npm run generate`); see scripts/blueprint-docs.ts.
import { writeFileSync } from 'node:fs';
import { tsImport } from 'tsx/esm/api';

const { blueprintDocsSource, blueprintSchemaSource, BLUEPRINT_DOCS_FILE, BLUEPRINT_SCHEMA_FILE } = await tsImport('./blueprint-docs.ts', import.meta.url);
writeFileSync(BLUEPRINT_DOCS_FILE, blueprintDocsSource());
writeFileSync(BLUEPRINT_SCHEMA_FILE, blueprintSchemaSource());
process.stdout.write('wrote docs/blueprints.md (generated tables) and docs/blueprint.schema.json\n');
