// `svc-server --help`: every flag with a one-line meaning, generated from the schema.
import { scalarSettings } from './schema';

export function helpText(): string {
  const rows: Array<[string, string]> = [
    ['--config <path>', 'YAML config file (also $SVC_CONFIG)'],
    ...scalarSettings.map((s): [string, string] => [`--${s.flag} <${s.kind}>`, `${s.help} ($${s.env})`]),
    ['--allow-ip <ip|cidr>', 'let outbound calls reach these addresses; repeatable ($SVC_ALLOW_IP)'],
    ['--allow-localhost', 'let outbound calls reach loopback ($SVC_ALLOW_LOCALHOST)'],
    ['--allow-private', 'let outbound calls reach private ranges ($SVC_ALLOW_PRIVATE)'],
    ['--mcp-allowed-host <host[:port]>', 'extra Host value the MCP endpoint accepts; repeatable ($SVC_MCP_ALLOWED_HOSTS)'],
    ['--allow-unauthenticated', 'serve with no token check ($SVC_ALLOW_UNAUTHENTICATED)'],
    ['--health-check', 'probe a running server at the configured address and exit 0 or 1'],
    ['--help', 'print this help and exit'],
    ['--version', 'print the version and exit'],
  ];
  const width = Math.max(...rows.map(([flag]) => flag.length));
  return [
    'usage: svc-server [flags]',
    '',
    'Serves the svc HTTP API and MCP endpoint. Settings come from flags, SVC_* variables,',
    'the config file, HOST/PORT and defaults, in that order. Tokens: SVC_SERVER_TOKEN',
    '(admin) and api_tokens in the config file.',
    '',
    ...rows.map(([flag, text]) => `  ${flag.padEnd(width)}  ${text}`),
  ].join('\n');
}
