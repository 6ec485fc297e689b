// Startup log lines that tell the operator how the server is exposed: authentication
// mode, outbound grants from the environment, telemetry.
import type { ServerLog } from '../audit';
import type { Settings } from '../config';

function isLoopback(address: string): boolean {
  return address === '::1' || address.startsWith('127.') || address === 'localhost';
}

export function logStartupPosture(log: ServerLog, settings: Settings): void {
  if (settings.allowUnauthenticated) {
    const addr = `${settings.bind}:${settings.port}`;
    log.warn(
      'svc_server::auth',
      isLoopback(settings.bind)
        ? 'authentication disabled: every local process has admin access'
        : `authentication disabled: anyone who can reach ${addr} has admin access`,
      { addr },
    );
  } else {
    log.info('svc_server::auth', 'inbound authentication enabled', {
      tokens: settings.tokens.map((t) => `${t.name} (${t.role})`).join(', '),
    });
  }
  if (settings.network.grantsFromEnvironment.length > 0) {
    log.warn('svc_server::network', 'outbound grants come from environment variables', {
      vars: settings.network.grantsFromEnvironment.join(','),
    });
  }
  if (settings.telemetry && settings.telemetryEndpoint === null) {
    log.info('svc_server::telemetry', 'telemetry enabled but no telemetry_endpoint is set; nothing is sent');
  }
}
