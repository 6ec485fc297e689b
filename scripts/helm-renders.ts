// The Helm chart as Helm itself renders it, kept in fixtures/helm so that the chart test's
// template renderer (test/support/go-template.ts) is checked against Helm on machines without
// the binary. `npm run render-helm` writes the renders with `helm` (or $HELM); each records the
// chart's digest, so a chart changed since its renders fails the test until they are made again.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const CHART_DIR = path.join(root, 'deploy/helm/svc');
export const RENDERS_DIR = path.join(root, 'fixtures/helm');
/** The release every render uses (the test renderer's default). */
export const RELEASE = { name: 'demo', namespace: 'tools' };

const SECRETS = { auth: { adminToken: 'a'.repeat(64), userToken: 'u'.repeat(64), storeKey: Buffer.alloc(32, 7).toString('base64') } };

/** The values each render is made with, by name: what the chart test asserts on. */
export const HELM_CASES: Record<string, Record<string, unknown>> = {
  defaults: SECRETS,
  'sandbox-partial': { ...SECRETS, runnerSandbox: { full: false } },
  'scaled-out': { ...SECRETS, replicas: 3, router: { enabled: true }, serviceMonitor: { enabled: true } },
  'existing-secret': { auth: { existingSecret: 'mine' } },
};

/** sha256 over the chart's files (relative path and content, in path order). */
export function chartDigest(dir = CHART_DIR): string {
  const hash = createHash('sha256');
  const walk = (at: string): string[] =>
    readdirSync(path.join(dir, at), { withFileTypes: true })
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
      .flatMap((entry) => (entry.isDirectory() ? walk(path.join(at, entry.name)) : [path.join(at, entry.name)]));
  for (const file of walk('.')) hash.update(`${file}\0`).update(readFileSync(path.join(dir, file))).update('\0');
  return hash.digest('hex');
}

/** The first line of a render: how it was made, and from which chart. */
export function renderHeader(helmVersion: string, digest: string): string {
  return `# helm template ${RELEASE.name} deploy/helm/svc --namespace ${RELEASE.namespace}; ${helmVersion}; chart sha256 ${digest}`;
}

/** The chart digest a render's first line records, or null. */
export function renderedDigest(text: string): string | null {
  return /^# helm template .*; chart sha256 ([0-9a-f]{64})$/m.exec(text.split('\n', 1)[0])?.[1] ?? null;
}

export const renderFile = (name: string) => path.join(RENDERS_DIR, `${name}.yaml`);
