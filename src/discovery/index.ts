// Public API of discovery: the prompt, package search and docs, built-ins.
export { executePrompt, toolDescriptions, visibleModules, hasPotential, REST_TOOL_NAMES, type ToolNames } from './prompt';
export { searchPackages, packageDocs, packageMarkdown, builtinsDocs, suggest, lookupCounters, type SearchEntry, type RegistryPackage, type RegistryLookup, type McpPackageView, type DocsAnswer } from './catalogue';
export { BUILTIN_FUNCTIONS, BUILTIN_NAMESPACES, BUILTIN_TYPES, builtinDeclarations, builtinsText, isBuiltinName } from './builtins';
