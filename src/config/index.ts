// Public API of the settings layer.
export * from './settings';
export { ConfigError } from './errors';
export { limitDefaults } from './schema';
export { parseRepositoryName, sizeInBytes, type SizeReading } from './values';
export { parseCommand, parseRunSettings, type RunSettings, type Command, type CommandInput, type HealthCheckTarget, type StartupWarning } from './command';
export { computeSettingsHash, canonicalJson } from './settings-hash';
