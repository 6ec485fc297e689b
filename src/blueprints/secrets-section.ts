// The `secrets` section: each secret names exactly one source, a store key or the harness
// (the schema's), then names and store keys are checked (stage 3, invalid_secrets).
import { storeKeyProblem } from '../secrets';
import type { SecretDeclaration } from './model';
import { fail, NAME } from './readers';

export function checkSecrets(secrets: ReadonlyMap<string, SecretDeclaration>): void {
  for (const [secretName, declaration] of secrets) {
    if (!NAME.test(secretName)) fail('invalid_secrets', `secret name '${secretName}' contains characters outside [A-Za-z0-9_-]`, ['secrets', secretName], null);
    if (declaration.source === 'store') {
      const problem = storeKeyProblem(declaration.key);
      if (problem) fail('invalid_secrets', `secret '${secretName}': store key '${declaration.key}': ${problem}`, ['secrets', secretName, 'store'], null);
    }
  }
}
