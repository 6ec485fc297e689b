// The typed error of the settings layer: `usage` (malformed command line, exit 2) or
// `invalid` (a setting that does not parse or is not allowed, exit 1). Messages name the
// setting and the expected form, never a token or key value.
export class ConfigError extends Error {
  constructor(
    readonly code: 'usage' | 'invalid',
    message: string,
  ) {
    super(message);
    this.name = 'ConfigError';
  }
}

export const invalid = (message: string) => new ConfigError('invalid', message);
export const usage = (message: string) => new ConfigError('usage', message);
