// Renders the Helm chart with Helm for each case of scripts/helm-renders.ts into fixtures/helm
// (`npm run render-helm`; HELM=<path> if helm is not on PATH). Run it after changing the chart.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { tsImport } from 'tsx/esm/api';

const { CHART_DIR, RENDERS_DIR, RELEASE, HELM_CASES, chartDigest, renderHeader, renderFile } = await tsImport('./helm-renders.ts', import.meta.url);
const helm = process.env.HELM || 'helm';
const version = spawnSync(helm, ['version', '--short'], { encoding: 'utf8' });
if (version.error || version.status !== 0) {
  process.stderr.write(`render-helm: cannot run ${helm} (${version.error?.message ?? version.stderr.trim()}); install Helm or set HELM=<path>\n`);
  process.exit(1);
}
const header = renderHeader(`helm ${version.stdout.trim()}`, chartDigest());
const scratch = mkdtempSync(path.join(tmpdir(), 'svc-helm-'));
try {
  mkdirSync(RENDERS_DIR, { recursive: true });
  for (const [name, values] of Object.entries(HELM_CASES)) {
    const valuesFile = path.join(scratch, `${name}.json`);
    writeFileSync(valuesFile, JSON.stringify(values));
    const rendered = spawnSync(helm, ['template', RELEASE.name, CHART_DIR, '--namespace', RELEASE.namespace, '-f', valuesFile], { encoding: 'utf8' });
    if (rendered.status !== 0) throw new Error(`helm template failed for ${name}: ${rendered.stderr}`);
    writeFileSync(renderFile(name), `${header}\n${rendered.stdout}`);
  }
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
process.stdout.write(`wrote ${Object.keys(HELM_CASES).length} renders to fixtures/helm with ${version.stdout.trim()}\n`);
