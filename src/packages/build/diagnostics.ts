// Build diagnostics and their one-line rendering (`@acme/billing/src/lib.ts:12:3: warning: …`).
export interface BuildDiagnostic {
  severity: 'error' | 'warning';
  /** Display name: `@scope/name/src/<file>.ts`, or `@scope/name/docs/readme.md`. */
  file: string;
  line: number;
  column: number;
  message: string;
}

export function renderDiagnostic(d: BuildDiagnostic): string {
  return `${d.file}:${d.line}:${d.column}: ${d.severity}: ${d.message}`;
}

/** The message of a deny-warnings failure (`--deny-warnings` turns any warning into a failed build). */
export function deniedWarningsMessage(warnings: readonly string[]): string {
  return `${warnings.length} warning${warnings.length === 1 ? '' : 's'} treated as errors:\n${warnings.map((w) => `  ${w}`).join('\n')}`;
}
