// The `secrets` section: each secret names exactly one source, a store key or the harness
// (stage 2), then names and store keys are checked (stage 3, invalid_secrets).
import { storeKeyProblem } from '../secrets';
import type { SecretDeclaration } from './model';
import { asMap, bool, checkKeys, fail, get, NAME, text } from './readers';
import { fieldNames, HarnessSecretSchema, SecretSourceSchema } from './schema';
import type { TreeNode } from './yaml-tree';

const SOURCES = fieldNames(SecretSourceSchema);

export function parseSecrets(node: TreeNode): Map<string, SecretDeclaration> {
  const secrets = new Map<string, SecretDeclaration>();
  for (const entry of asMap(node, ['secrets'])?.entries ?? []) {
    const path = ['secrets', entry.key];
    const source = entry.value.kind === 'null' ? null : asMap(entry.value, path);
    for (const key of source?.entries.map((e) => e.key) ?? []) {
      if (!SOURCES.includes(key)) fail('parse_error', `secret '${entry.key}': unknown source \`${key}\`, expected one of ${SOURCES.map((s) => `\`${s}\``).join(', ')}`, [...path, key], entry.value);
    }
    const store = source?.entries.find((e) => e.key === 'store');
    const harness = source?.entries.find((e) => e.key === 'harness');
    if (!source || (store ? 1 : 0) + (harness ? 1 : 0) !== 1 || store?.value.kind === 'null' || harness?.value.kind === 'null') {
      fail('parse_error', `secret '${entry.key}': a secret needs exactly one source: store / harness`, path, entry.value.kind === 'null' ? { kind: 'null', offset: entry.keyOffset } : entry.value);
    }
    if (store) {
      secrets.set(entry.key, { source: 'store', key: text(store.value, [...path, 'store']) });
      continue;
    }
    const harnessMap = harness!.value.kind === 'map' ? harness!.value : fail('parse_error', `secret '${entry.key}': \`harness\` takes \`{}\` or \`{required: true}\`, not a ${harness!.value.kind === 'seq' ? 'list' : 'plain value'}`, [...path, 'harness'], harness!.value);
    checkKeys(harnessMap, fieldNames(HarnessSecretSchema), [...path, 'harness']);
    const required = get(harnessMap, 'required');
    secrets.set(entry.key, { source: 'harness', required: required ? bool(required, [...path, 'harness', 'required']) : false });
  }
  return secrets;
}

export function checkSecrets(secrets: ReadonlyMap<string, SecretDeclaration>, secretsNode: TreeNode | undefined): void {
  for (const [secretName, declaration] of secrets) {
    if (!NAME.test(secretName)) fail('invalid_secrets', `secret name '${secretName}' contains characters outside [A-Za-z0-9_-]`, ['secrets', secretName], secretsNode);
    if (declaration.source === 'store') {
      const problem = storeKeyProblem(declaration.key);
      if (problem) fail('invalid_secrets', `secret '${secretName}': store key '${declaration.key}': ${problem}`, ['secrets', secretName, 'store'], secretsNode);
    }
  }
}
