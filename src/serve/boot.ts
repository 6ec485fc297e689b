// The composition root: builds every service from the settings in the startup order of
// server-operations §2.14, binds the listener, and wires the shutdown drain. Nothing else
// constructs services, so each module receives exactly what it needs.
import type { Hono } from 'hono';
import { openLogOutputs, type LogOutputs } from '../audit';
import { computeSettingsHash, type Settings } from '../config';
import { createApp, mountOpsRoutes, startListener, type AppEnv, type Listener } from '../http';
import { ShutdownCoordinator } from './shutdown';
import { logStartupPosture } from './posture';

export interface BootOptions {
  settings: Settings;
  version: string;
  warnings: Array<{ target: string; msg: string; fields?: Record<string, unknown> }>;
  exit: (code: number) => void;
}

/** Services that own resources to release at teardown, in reverse order of creation. */
type Closer = () => Promise<void> | void;

export async function boot(options: BootOptions): Promise<void> {
  const { settings } = options;
  const outputs: LogOutputs = openLogOutputs({
    logFile: settings.logging.file,
    filter: settings.logging.filter,
    audit: { enabled: settings.logging.audit.enabled, file: settings.logging.audit.file },
  });
  const { log, audit } = outputs;
  const closers: Closer[] = [];
  const cancel = new AbortController();

  const shutdown = new ShutdownCoordinator({
    log,
    graceSeconds: settings.shutdownGraceSeconds,
    cancel,
    exit: options.exit,
    teardown: async () => {
      for (const close of closers.reverse()) {
        try {
          await close();
        } catch (error) {
          log.error('svc_server::serve', 'teardown step failed', { error: (error as Error).message });
        }
      }
      audit.write({ type: 'server', event: 'stopped' });
      outputs.close();
    },
  });
  shutdown.installSignalHandlers();
  process.on('SIGHUP', () => {
    // With standard output there is nothing to reopen.
    if (outputs.reopen()) log.info('svc_server::serve', 'log files reopened');
  });

  for (const warning of options.warnings) log.warn(warning.target, warning.msg, warning.fields);
  logStartupPosture(log, settings);

  const mounts: Array<(app: Hono<AppEnv>) => void> = [];
  let listener: Listener | null = null;

  mounts.push((app) =>
    mountOpsRoutes(app, {
      audit,
      boundAddress: () => listener?.address ?? `${settings.bind}:${settings.port}`,
      activeSessions: () => 0,
      blueprintNames: () => [],
      requestShutdown: (trigger) => void shutdown.stop(trigger),
    }),
  );

  const app = createApp({
    tokens: settings.tokens,
    allowUnauthenticated: settings.allowUnauthenticated,
    audit,
    log,
    draining: () => shutdown.draining,
    cancelSignal: cancel.signal,
    mounts,
  });

  listener = await startListener(app, {
    bind: settings.bind,
    port: settings.port,
    tls: settings.tls ? { cert: settings.tls.cert, key: settings.tls.key } : null,
  });

  audit.write({
    type: 'server',
    event: 'started',
    version: options.version,
    settings_hash: computeSettingsHash(settings, listener.address),
    allow_unauthenticated: settings.allowUnauthenticated,
    ...(settings.network.grantsFromEnvironment.length > 0 ? { egress_grants: settings.network.grantsFromEnvironment } : {}),
  });
  log.info('svc_server::serve', 'svc-server listening', { addr: listener.address, protocol: listener.protocol });
  shutdown.serving(listener);
}
