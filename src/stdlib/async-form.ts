// Asynchronous forms of the modules that wait on the network (`svc:http/async`,
// `@mcp/<server>/async`, ...): the same operations under a sibling name, whose functions
// return promises, so `await Promise.all(...)` runs them concurrently. The guest builds
// the namespace from the same guest code (sandbox/prelude/namespaces.ts, asyncNamespaceOf);
// each call is the synchronous form's operation, with the same gate, record, fuel and audit.
import type { HostModule } from './types';

export const ASYNC_SUFFIX = '/async';

/** The module's asynchronous sibling; `declarations` when the module renders its own (else derived from the synchronous ones). */
export function asyncForm(module: HostModule, declarations?: string): HostModule {
  return {
    ...module,
    name: `${module.name}${ASYNC_SUFFIX}`,
    description: `${module.description}; asynchronous form: the same functions returning promises (run many at once with Promise.all)`,
    declarations: declarations ?? asyncDeclarations(module.name, module.declarations),
  };
}

/** The declarations with the module renamed and every exported function returning a promise. */
function asyncDeclarations(name: string, declarations: string): string {
  return declarations
    .replace(`declare module ${JSON.stringify(name)} {`, `declare module ${JSON.stringify(`${name}${ASYNC_SUFFIX}`)} {`)
    .replace(/^(\s*export function [^\n]*\)): ([^;\n]+);[ \t]*$/gm, (_line, head: string, result: string) => `${head}: Promise<${result}>;`);
}

/** A module and its asynchronous form. */
export function withAsyncForm(module: HostModule, asyncDeclarations?: string): HostModule[] {
  return [module, asyncForm(module, asyncDeclarations)];
}
