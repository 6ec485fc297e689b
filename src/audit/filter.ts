// RUST_LOG-style level filter: comma-separated `level` or `target=level` directives; a
// target matches itself and its `::` children; the longest matching target wins.
export type LogLevel = 'error' | 'warn' | 'info' | 'debug' | 'trace';
type FilterLevel = LogLevel | 'off';

const rank: Record<FilterLevel, number> = { off: 0, error: 1, warn: 2, info: 3, debug: 4, trace: 5 };
const isLevel = (value: string): value is FilterLevel => value in rank;

export class LevelFilter {
  private constructor(
    private readonly fallback: FilterLevel,
    private readonly directives: Array<{ target: string; level: FilterLevel }>,
  ) {}

  static parse(text: string | null, warn: (message: string) => void): LevelFilter {
    if (text === null || text.trim() === '') return new LevelFilter('info', []);
    let fallback: FilterLevel = 'info';
    const directives: Array<{ target: string; level: FilterLevel }> = [];
    for (const raw of text.split(',')) {
      const part = raw.trim();
      if (part === '') continue;
      const eq = part.indexOf('=');
      if (eq === -1) {
        const level = part.toLowerCase();
        if (!isLevel(level)) return LevelFilter.invalid(text, warn);
        fallback = level;
      } else {
        const target = part.slice(0, eq).trim();
        const level = part.slice(eq + 1).trim().toLowerCase();
        if (target === '' || !isLevel(level)) return LevelFilter.invalid(text, warn);
        directives.push({ target, level });
      }
    }
    directives.sort((a, b) => b.target.length - a.target.length);
    return new LevelFilter(fallback, directives);
  }

  private static invalid(text: string, warn: (message: string) => void): LevelFilter {
    warn(`ignoring invalid RUST_LOG value ${JSON.stringify(text)}; logging at info`);
    return new LevelFilter('info', []);
  }

  enabled(target: string, level: LogLevel): boolean {
    const directive = this.directives.find((d) => target === d.target || target.startsWith(`${d.target}::`));
    return rank[level] <= rank[directive ? directive.level : this.fallback];
  }
}
