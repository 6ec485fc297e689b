// The runner sandbox at start-up: what to try (the wrappers this host has, strongest first:
// the pool's first runners are the probe), then, once the pool has started, the level found,
// in the metrics and in one start-up line naming what is missing when it is not full.
import type { ServerLog } from '../audit';
import type { Settings } from '../config';
import { metrics } from '../metrics';
import { confinementProbe, defaultRunnerEntry, SANDBOX_FEATURES, SANDBOX_LEVELS, type ConfinementProbe, type RunnerConfinement } from '../../sandbox';

export function runnerSandboxProbe(settings: Settings): ConfinementProbe {
  // The database (or the home, for an in-memory one) must be absent from the runner's view: the first runner looks for it from inside.
  const hiddenPath = settings.paths.databasePath === ':memory:' ? settings.home : settings.paths.databasePath;
  return confinementProbe({ entry: defaultRunnerEntry().entry, hiddenPath });
}

export function reportRunnerSandbox(confinement: RunnerConfinement, log: ServerLog): void {
  for (const level of SANDBOX_LEVELS) metrics.runnerSandboxLevel.set({ level }, level === confinement.level ? 1 : 0);
  for (const feature of SANDBOX_FEATURES) metrics.runnerSandboxFeature.set({ feature }, confinement.features.includes(feature) ? 1 : 0);
  const fields = { level: confinement.level, wrapper: confinement.wrapper?.name ?? 'none' };
  if (confinement.level === 'full') {
    log.info('svc_server::sandbox', 'runner sandbox: full', fields);
  } else {
    log.warn('svc_server::sandbox', `runner sandbox is ${confinement.level}: runners run without ${confinement.missing.join(', ')}`, {
      ...fields,
      missing: confinement.missing.join(','),
      ...(confinement.failures.length > 0 ? { refused: confinement.failures.join('; ') } : {}),
      help: 'README "How a run is contained" (install bubblewrap; allow namespaces in the container or unit)',
    });
  }
}
