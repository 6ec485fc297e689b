// `svc blueprint lint`: checks Blueprint files locally with the server's own parser and
// the registration check that needs no server state (filter fields), then warns about
// rules that can never match and about unknown capability names. The checks
// against a server's state (declared volumes, stored secrets, installed Packages) happen
// at `apply`.
import { parseBlueprint, registrationProblem, type Blueprint } from '../blueprints';
import { unknownCapabilityProblem } from '../policy';
import type { VolumeDeclaration } from '../config';
import { blueprintError, renderPath, type BlueprintFailure } from './diagnostics';
import { readBlueprintFile } from './blueprint-file';
import type { CliError } from './errors';
import { positionOf } from './yaml-position';

export interface LintWarning {
  path: Array<string | number>;
  message: string;
}

export type LintResult = { ok: true; blueprint: Blueprint; warnings: string[] } | { ok: false; error: CliError };

export function lintBlueprintFile(file: string, cwd: string): LintResult {
  let text: string;
  try {
    text = readBlueprintFile(file, cwd).text;
  } catch (error) {
    return { ok: false, error: error as CliError };
  }
  const checked = checkDocument(text);
  if (!checked.ok) return { ok: false, error: blueprintError(file, checked.failure) };
  const blueprint = checked.blueprint;
  const warnings = policyWarnings(blueprint).map((warning) => {
    const at = positionOf(text, warning.path);
    return `${file}${at ? `:${at.line}:${at.col}` : ''}: ${warning.message} (at ${renderPath(warning.path)})`;
  });
  return { ok: true, blueprint, warnings };
}

/** The document's first fault: the server's parser, then the filter-field check (with its position). */
function checkDocument(text: string): { ok: true; blueprint: Blueprint } | { ok: false; failure: BlueprintFailure } {
  const parsed = parseBlueprint(text);
  if (!parsed.ok) return { ok: false, failure: { code: parsed.problem.code, message: parsed.problem.message, diagnostic: parsed.problem.diagnostic } };
  const fields = registrationProblem(parsed.blueprint, serverStateAssumedPresent(parsed.blueprint));
  if (!fields) return { ok: true, blueprint: parsed.blueprint };
  const at = positionOf(text, fields.diagnostic.path ?? []);
  return { ok: false, failure: { code: fields.code, message: fields.message, diagnostic: { ...fields.diagnostic, ...(at ?? {}) } } };
}

/** What `lint` would report first for this text, or null (used to check edits before writing). */
export function documentProblem(text: string): BlueprintFailure | null {
  const checked = checkDocument(text);
  return checked.ok ? null : checked.failure;
}

/**
 * A registration context in which every server-side fact holds (each referenced volume
 * declared read_write, every store secret stored, every Package installed), so only the
 * document's own checks can fail.
 */
function serverStateAssumedPresent(blueprint: Blueprint) {
  const referenced = [blueprint.vfs.volume, ...Object.values(blueprint.vfs.mounts ?? {}).map((m) => m.volume)].filter((v): v is string => !!v);
  const volumes: VolumeDeclaration[] = referenced.map((name) => ({ name, kind: 'managed-local', directory: '', access: 'read_write', sizeLimit: 'unlimited' }));
  return { volumes, secretStoreEnabled: true, hasSecret: () => true, isPackageInstalled: () => true };
}

/** Rules shadowed by an earlier unfiltered rule for the same capability, and unknown capability names (ask-human is supported: no warning). */
export function policyWarnings(blueprint: Blueprint): LintWarning[] {
  const warnings: LintWarning[] = [];
  for (const [caller, rules] of blueprint.policy.callers) {
    rules.forEach((rule, index) => {
      const earlier = rules.findIndex((other, j) => j < index && other.capability === rule.capability && !other.filter);
      if (earlier !== -1) {
        warnings.push({
          path: ['permissions', caller, index],
          message: `\`permissions.${caller}\` rule ${index + 1} for \`${rule.capability}\` can never match: rule ${earlier + 1} has no filter and matches every use first; move this rule above it or remove it`,
        });
      }
      const unknown = unknownCapabilityProblem(rule.capability, Object.keys(blueprint.mcp));
      if (unknown) warnings.push({ path: ['permissions', caller, index, 'capability'], message: `\`permissions.${caller}\` rule ${index + 1}: ${unknown}` });
    });
  }
  return warnings;
}
