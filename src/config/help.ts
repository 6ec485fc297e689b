// `svc-server --help`: every flag with a one-line meaning (generated from the settings
// table), then the variables and file keys that have no flag.
import { scalarSettings, type ScalarKind } from './schema';

const placeholder: Record<ScalarKind, string> = {
  ip: '<ip>',
  port: '<port>',
  path: '<path>',
  name: '<variable>',
  endpoint: '<url>',
  count: '<count>',
  megabytes: '<MB>',
  kibibytes: '<KiB>',
  seconds: '<seconds>',
  whole: '<n>',
  url: '<url>',
  repository: '<owner/repo>',
  duration: '<duration>',
  size: '<size>',
};

function table(rows: Array<[string, string]>): string[] {
  const width = Math.max(...rows.map(([left]) => left.length));
  return rows.map(([left, text]) => `  ${left.padEnd(width)}  ${text}`);
}

export function helpText(): string {
  const flags: Array<[string, string]> = [
    ['--config <path>', 'YAML config file ($SVC_CONFIG)'],
    ...scalarSettings.map((s): [string, string] => [`--${s.flag} ${placeholder[s.kind]}`, `${s.help} ($${s.env})`]),
    ['--allow-ip <ip|cidr>', 'let outbound calls reach these addresses (any blocked range, e.g. 198.18.0.0/15); repeatable, comma lists ($SVC_ALLOW_IP)'],
    ['--add-host <name=ip>', 'send outbound calls for this host name to this address, before DNS; repeatable, comma lists ($SVC_ADD_HOSTS; file network.hosts)'],
    ['--allow-localhost', 'let outbound calls reach loopback and this host\'s own addresses ($SVC_ALLOW_LOCALHOST)'],
    ['--allow-private', 'let outbound calls reach private ranges ($SVC_ALLOW_PRIVATE)'],
    ['--mcp-allowed-host <host[:port]>', 'extra Host value the MCP endpoint accepts; repeatable, comma lists ($SVC_MCP_ALLOWED_HOSTS)'],
    ['--deny-warnings', 'refuse every Package install that has a code warning ($SVC_DENY_WARNINGS=1; file deny_warnings)'],
    ['--allow-unauthenticated', 'serve with no token check; every caller is admin ($SVC_ALLOW_UNAUTHENTICATED)'],
    ['--health-check', 'probe a running server at the configured address; exit 0 when it answers, 1 otherwise'],
    ['--help', 'print this help and exit'],
    ['--version', 'print `svc-server <version>` and exit'],
  ];
  const variables: Array<[string, string]> = [
    ['SVC_SERVER_TOKEN', 'an admin API token (at least 32 characters; `openssl rand -hex 32`)'],
    ['SVC_SECRET_KEY', 'secret store key, base64 of 32 bytes (`openssl rand -base64 32`)'],
    ['SVC_HOME', 'base of every default path (default ~/.svc)'],
    ['SVC_TELEMETRY, SVC_TELEMETRY_INCLUDE_SOURCE', 'telemetry switches (a file `false` wins)'],
    ['HOST, PORT', 'listen address and port below the config file; PORT alone binds 0.0.0.0'],
    ['RUST_LOG', 'server log filter, e.g. `info,svc_server::http=debug`'],
  ];
  return [
    'usage: svc-server [flags]',
    '',
    'Serves the svc HTTP API and MCP endpoint. Each setting comes from its flag, else its',
    'SVC_* variable, else the config file, else (address and port only) HOST/PORT, else',
    'its default. Grants, host entries, MCP hosts and --allow-unauthenticated add up across sources.',
    '',
    'Flags:',
    ...table(flags),
    '',
    'Variables without a flag:',
    ...table(variables),
    '',
    'Config file only: api_tokens, volumes, mcp_oauth.providers, github_token_file (re-read per install),',
    'logging.audit.{enabled,file,allows}, telemetry, telemetry_include_source.',
    '--runner-pool-size, --runs-per-runner, --max-runs-in-flight, --max-runs-memory, --max-queued-runs,',
    'the per-token quotas (--max-*-per-token, --max-idempotency-token-size), the connection bounds',
    '(--max-connections, --max-connections-per-address, --max-unauthenticated-connections, --header-timeout)',
    'and --telemetry-endpoint (telemetry_endpoint) are svc',
    'extensions: they have no counterpart in the common settings of other implementations.',
  ].join('\n');
}
