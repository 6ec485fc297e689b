// @svc/client: a typed client for every svc route and Vercel AI SDK tools from a Blueprint's prompt.
export { SvcClient, type SvcClientOptions, type SvcError, type SvcResult } from './client.js';
export { svcTools, SVC_TOOL_NAMES, executeInput, searchInput, docsInput, builtinsInput, lastRunInput, type SvcToolsOptions } from './tools.js';
export type * from './types.js';
