// The runner sandbox at start-up: probes once what this host allows, reports it in the
// metrics, and warns once, naming what is missing, when runners get less than every wall.
import type { ServerLog } from '../audit';
import type { Settings } from '../config';
import { metrics } from '../metrics';
import { defaultRunnerEntry, probeConfinement, SANDBOX_FEATURES, SANDBOX_LEVELS, type RunnerConfinement } from '../../sandbox';

export async function confineRunners(settings: Settings, log: ServerLog): Promise<RunnerConfinement> {
  // The database (or the home, for an in-memory one) must be absent from the runner's view: the probe looks for it from inside.
  const hiddenPath = settings.paths.databasePath === ':memory:' ? settings.home : settings.paths.databasePath;
  const confinement = await probeConfinement({ entry: defaultRunnerEntry().entry, hiddenPath });
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
  return confinement;
}
