// Renders a Blueprint failure the way every command prints it:
//   error: <file>:<line>:<col>: <message>
//     at <diagnostic path>
//     <what to do next>
// from the server's error body or a local check.
import type { Diagnostic } from '../blueprints';
import { CliError } from './errors';

/** A Blueprint diagnostic as read from a server's answer (any field may be missing). */
export type BlueprintDiagnostic = Partial<Diagnostic>;

export interface BlueprintFailure {
  /** The error code (`parse_error`, `unresolved_secret`, …). */
  code: string;
  /** The full message, with its class prefix. */
  message: string;
  diagnostic?: BlueprintDiagnostic;
}

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_-]*$/;

/** `["permissions","@acme/x",0,"filter"]` → `permissions["@acme/x"][0].filter`. */
export function renderPath(path: ReadonlyArray<string | number>): string {
  let out = '';
  for (const segment of path) {
    if (typeof segment === 'number') out += `[${segment}]`;
    else if (IDENTIFIER.test(segment)) out += out === '' ? segment : `.${segment}`;
    else out += `[${JSON.stringify(segment)}]`;
  }
  return out;
}

/** What to do next, by error code. */
function nextStep(code: string, file: string): string | undefined {
  switch (code) {
    case 'already_exists':
      return `to replace the registered version, run \`svc blueprint apply ${file}\``;
    case 'unresolved_secret':
      return 'store the value with `svc secret put <store key>` (it reads the value from a prompt or standard input), then retry';
    case 'undeclared_volume':
    case 'volume_access_exceeded':
      return "declare the volume under `volumes` in the server's config file (and restart it), or change the Blueprint's `vfs`";
    case 'package_missing':
      return 'install the Package on the server, then retry';
    case 'not_found':
      return 'list the registered Blueprints with `svc blueprint list`';
    case 'internal_error':
      return 'the server log has the details; retry once the server is healthy';
    default:
      return code === 'parse_error' || code.startsWith('invalid_') || code === 'name_mismatch' ? `fix the file, then check it with \`svc blueprint lint ${file}\`` : undefined;
  }
}

export function blueprintError(file: string, failure: BlueprintFailure): CliError {
  const { line, col, path } = failure.diagnostic ?? {};
  const where = line !== undefined ? `${file}:${line}:${col ?? 1}` : file;
  const details: string[] = [];
  if (path && path.length > 0) details.push(`at ${renderPath(path)}`);
  const step = nextStep(failure.code, file);
  if (step) details.push(step);
  return new CliError(`${where}: ${failure.message}`, 1, details);
}

/** The failure in a server error body, or null when the body is not a Blueprint error. */
export function failureFromBody(body: any, status: number): BlueprintFailure | null {
  if (!body || typeof body !== 'object' || typeof body.error !== 'string') return null;
  const diagnostic = Array.isArray(body.diagnostics) && body.diagnostics.length > 0 ? (body.diagnostics[0] as BlueprintDiagnostic) : undefined;
  return { code: body.error, message: typeof body.message === 'string' ? body.message : `${body.error} (HTTP ${status})`, ...(diagnostic ? { diagnostic } : {}) };
}
