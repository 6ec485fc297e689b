// RUST_LOG-style level filter for the server log: comma-separated
// directives, each `level` or `target=level`; a target matches itself and its `::`
// children; the longest matching target wins; default `info`. Audit records bypass it.
export type LogLevel = 'error' | 'warn' | 'info' | 'debug' | 'trace';
export type FilterLevel = LogLevel | 'off';

const RANK: Record<FilterLevel, number> = { off: 0, error: 1, warn: 2, info: 3, debug: 4, trace: 5 };
const DEFAULT_LEVEL: FilterLevel = 'info';

interface Directive {
  target: string;
  level: FilterLevel;
}

export class InvalidFilterError extends Error {
  readonly code = 'invalid_log_filter';
}

function parseLevel(text: string): FilterLevel | null {
  const level = text.trim().toLowerCase();
  return Object.hasOwn(RANK, level) ? (level as FilterLevel) : null;
}

function parseDirective(part: string): Directive | { level: FilterLevel } {
  const pieces = part.split('=');
  if (pieces.length > 2) throw new InvalidFilterError(`directive ${JSON.stringify(part)} has more than one '='`);
  const level = parseLevel(pieces[pieces.length - 1]);
  if (level === null) throw new InvalidFilterError(`unknown level in ${JSON.stringify(part)}`);
  if (pieces.length === 1) return { level };
  const target = pieces[0].trim();
  if (target === '' || /\s/u.test(target)) throw new InvalidFilterError(`invalid target in ${JSON.stringify(part)}`);
  return { target, level };
}

export class LevelFilter {
  private constructor(
    private readonly fallback: FilterLevel,
    /** Longest target first; among equal targets the later directive wins. */
    private readonly directives: readonly Directive[],
  ) {}

  static readonly default = new LevelFilter(DEFAULT_LEVEL, []);

  /** Parses a RUST_LOG value; throws InvalidFilterError naming the bad directive. */
  static parseStrict(text: string | null): LevelFilter {
    if (text === null || text.trim() === '') return LevelFilter.default;
    let fallback = DEFAULT_LEVEL;
    const byTarget = new Map<string, FilterLevel>();
    for (const raw of text.split(',')) {
      if (raw.trim() === '') continue;
      const directive = parseDirective(raw);
      if ('target' in directive) {
        byTarget.delete(directive.target); // re-insert so the later directive is kept
        byTarget.set(directive.target, directive.level);
      } else {
        fallback = directive.level;
      }
    }
    const directives = [...byTarget].map(([target, level]) => ({ target, level }));
    directives.sort((a, b) => b.target.length - a.target.length);
    return new LevelFilter(fallback, directives);
  }

  /** Parses a RUST_LOG value; an invalid one is ignored (default `info`) with a warning. */
  static parse(text: string | null, warn: (line: string) => void): LevelFilter {
    try {
      return LevelFilter.parseStrict(text);
    } catch (error) {
      if (!(error instanceof InvalidFilterError)) throw error;
      warn(`warning: ignoring invalid RUST_LOG (${error.message}); logging at ${DEFAULT_LEVEL}`);
      return LevelFilter.default;
    }
  }

  enabled(target: string, level: LogLevel): boolean {
    return RANK[level] <= RANK[this.levelFor(target)];
  }

  levelFor(target: string): FilterLevel {
    const match = this.directives.find((d) => target === d.target || target.startsWith(`${d.target}::`));
    return match ? match.level : this.fallback;
  }
}
