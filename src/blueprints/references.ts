// `${secrets.NAME}` references inside Blueprint strings: found
// by scanning for `${secrets.` and taking everything up to the next `}` as NAME; an
// unterminated one is refused at registration rather than left to fail at use.
import type { SecretDeclaration } from './model';
import { fail, type BlueprintErrorCode, type Path } from './readers';

/** Every `${secrets.NAME}` in `value` terminated and declared, or why not. */
export function secretReferenceProblem(value: string, secrets: ReadonlyMap<string, SecretDeclaration>): string | null {
  let rest = value;
  for (let start = rest.indexOf('${secrets.'); start !== -1; start = rest.indexOf('${secrets.')) {
    const end = rest.indexOf('}', start);
    if (end === -1) return 'has an unterminated `${secrets.` reference';
    const name = rest.slice(start + '${secrets.'.length, end);
    if (!secrets.has(name)) return `references undeclared secret '${name}'`;
    rest = rest.slice(end + 1);
  }
  return null;
}


/** Refuses an unterminated or undeclared `${secrets.NAME}` in `value`. */
export function checkSecretReferences(value: string, where: string, code: BlueprintErrorCode, path: Path, secrets: ReadonlyMap<string, SecretDeclaration>): void {
  const problem = secretReferenceProblem(value, secrets);
  if (problem) fail(code, `${where} ${problem}`, path, null);
}
