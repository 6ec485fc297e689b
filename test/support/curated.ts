// Integration set-up for the curated Packages (packages/<name>): one real server per test
// process on a home holding every curated Package (copied from the real `svc build
// publish-local`'s output, published once per change: curated/published.ts), one loopback
// HTTPS server on port 443 answering every curated host under its real name (so a Package's
// literal base URL is used unchanged) and handing each request to the running test's
// stand-in; each test registers a Blueprint whose Package caller gets exactly the derived
// `requires` rules, and runs programs.
//
//   const c = await startCurated({ package: '@svc/jina', hosts: ['r.jina.ai', 's.jina.ai'], secret: 'JINA_API_KEY',
//     main: [{ capability: 'jina.ai/read' }], handler: (req) => ({ status: 200, body: '# Title' }) });
//   const out = await c.run('import { read } from "@svc/jina"; export function main() { return read("https://example.com"); }', { secrets: { JINA_API_KEY: 'k' } });
//   assert.equal(out.value, '# Title'); assert.equal(c.api.requests[0].headers.authorization, 'Bearer k');
//   await c.close();
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import { startServer, tempDir, type Reply, type TestServer } from '../harness';
import { curatedRoot, publishedCurated } from './curated/published';
import { serverOptions, startStandIn, type StandIn, type StandInHandler, type StandInReply, type StandInRequest } from './stand-in';

export { curatedRoot };

export interface Rule {
  capability: string;
  filter?: string;
  action?: 'allow' | 'deny';
}

/** The `requires` entries the build derived for a published Package (its capabilities.yaml). */
export function derivedRequires(home: string, packageName: string): Rule[] {
  const file = path.join(home, 'packages', ...packageName.split('/'), 'capabilities.yaml');
  const parsed = YAML.parse(fs.readFileSync(file, 'utf8')) as { requires?: Array<{ capability: string; filter?: string }> };
  return (parsed.requires ?? []).map((r) => ({ capability: r.capability, ...(r.filter ? { filter: r.filter } : {}) }));
}

export interface CuratedOptions {
  /** `@svc/<name>`. */
  package: string;
  /** Host names the stand-in plays (certificate and `--add-host` entries). */
  hosts: string[];
  handler?: StandInHandler;
  /** The secret the Package reads: declared as a harness secret, so each run may bind it or not. */
  secret: string;
  /** Rules under `main` (default action allow). The Package's caller gets its derived `requires`. */
  main?: Rule[];
  /** Replaces the Package's own rules (default: the derived `requires`, all allowed). */
  packageRules?: Rule[];
  /** More Blueprint YAML keys (e.g. a `vfs:` block), merged at the top level. */
  extra?: Record<string, unknown>;
  /** Blueprint name (default `curated`). */
  blueprint?: string;
}

export interface RunOutput {
  reply: Reply;
  /** The execute result's `result` text (a string result comes back as is, anything else as JSON text). */
  result: string | null;
  /** `result` parsed as JSON when it parses, else the text itself (return objects to be unambiguous). */
  value: any;
  /** The execute result's `error` object (kind, message, ...) when the run failed. */
  error: any;
}

export interface Curated {
  server: TestServer;
  api: StandIn;
  home: string;
  blueprint: string;
  /** Executes a one-off program under the Blueprint; `secrets` are harness secrets for this run. */
  run(code: string, options?: { secrets?: Record<string, string>; variables?: Record<string, string> }): Promise<RunOutput>;
  /**
   * Runs a program whose `main` returns an object (its tests' `program()` wrappers do), asserts
   * the run itself did not fail, and returns that object with the requests the stand-in
   * received meanwhile as `sent`.
   */
  call(code: string, options?: { secrets?: Record<string, string> }): Promise<Record<string, any> & { sent: StandInRequest[] }>;
  /** Audit `decision` records for a capability (newest last). */
  decisions(capability: string): Array<Record<string, string>>;
  close(): Promise<void>;
}

export function blueprintYaml(options: CuratedOptions, packageRules: Rule[]): string {
  const rules = (list: Rule[]) => list.map((r) => ({ capability: r.capability, ...(r.filter ? { filter: r.filter } : {}), action: r.action ?? 'allow' }));
  const doc = {
    name: options.blueprint ?? 'curated',
    default: 'deny',
    packages: [options.package],
    secrets: { [options.secret]: { harness: {} } },
    permissions: { [options.package]: rules(packageRules), ...(options.main?.length ? { main: rules(options.main) } : {}) },
    // Types stripped, not checked: these tests are about what a Package sends and answers, and
    // the server checked each of their ~200 distinct programs against the Package's
    // declarations (curated file 22.9 -> 19.2 CPU-s without). The Packages' own tests and
    // readme examples are checked by curated-build (svc build test), the checker by the
    // typecheck tests.
    typecheck: 'off',
    ...(options.extra ?? {}),
  };
  return YAML.stringify(doc);
}

/** Every host name a curated Package calls: the shared stand-in's certificate and the server's `--add-host` entries. */
export const CURATED_HOSTS = [
  'api.search.brave.com',
  'api.exa.ai',
  'api.firecrawl.dev',
  'api.github.com',
  'gmail.googleapis.com',
  'www.googleapis.com',
  'r.jina.ai',
  's.jina.ai',
  'api.linear.app',
  'api.notion.com',
  'sentry.io',
  'slack.com',
  'files.slack.com',
  'api.typesafe.ai',
];

interface SharedServer {
  server: TestServer;
  home: string;
  /** The loopback HTTPS server answering every curated host (port 443), forwarding to the running test's stand-in. */
  router: StandIn;
}

let shared: Promise<SharedServer> | undefined;
/** The running test's stand-in: requests to its hosts go to it; any other host's connection is dropped, as an unknown host's would fail. */
let receiver: ((request: StandInRequest) => Promise<StandInReply>) | null = null;

/** One server (and one stand-in) for every curated test of this process, on a home holding every curated Package. */
function sharedServer(): Promise<SharedServer> {
  shared ??= (async () => {
    const home = tempDir('svc-curated-');
    fs.cpSync(await publishedCurated(), path.join(home, 'packages'), { recursive: true });
    const router = await startStandIn(CURATED_HOSTS, (request) => (receiver ? receiver(request) : { destroy: true }), { defaultPort: true });
    try {
      return { server: await startServer({ home, ...serverOptions(router), timeoutMs: 60_000 }), home, router };
    } catch (error) {
      await router.close();
      throw error;
    }
  })();
  return shared;
}

/** Stops the shared server and stand-in (the curated test file's last `after`). */
export async function stopCurated(): Promise<void> {
  if (!shared) return;
  const { server, router } = await shared;
  shared = undefined;
  await server.stop();
  await router.close();
}

/**
 * The Package's Blueprint on the shared server (created or replaced) and a stand-in of its
 * service: only the requests for its hosts since it started, its own handler, its own audit
 * window. Curated tests of one process run one after the other.
 */
export async function startCurated(options: CuratedOptions): Promise<Curated> {
  const unknown = options.hosts.filter((host) => !CURATED_HOSTS.includes(host));
  assert.deepEqual(unknown, [], 'add these hosts to CURATED_HOSTS');
  const { server: running, home, router } = await sharedServer();
  let handler: StandInHandler = options.handler ?? (() => ({ status: 404, json: { error: 'no handler' } }));
  const waiters: Array<{ count: number; resolve: () => void }> = [];
  const api: StandIn = {
    hosts: options.hosts,
    address: router.address,
    port: router.port,
    origin: (host = options.hosts[0]) => router.origin(host),
    requests: [],
    received: (count) =>
      new Promise<void>((resolve) => {
        if (api.requests.length >= count) resolve();
        else waiters.push({ count, resolve });
      }),
    inFlight: 0,
    maxInFlight: 0,
    handle: (next) => {
      handler = next;
    },
    close: async () => {},
  };
  receiver = async (request) => {
    if (!options.hosts.includes(request.host)) return { destroy: true };
    api.requests.push(request);
    for (const waiter of waiters.filter((w) => api.requests.length >= w.count)) {
      waiters.splice(waiters.indexOf(waiter), 1);
      waiter.resolve();
    }
    api.inFlight++;
    api.maxInFlight = Math.max(api.maxInFlight, api.inFlight);
    try {
      return await handler(request);
    } finally {
      api.inFlight--;
    }
  };
  const blueprint = options.blueprint ?? 'curated';
  const yaml = blueprintYaml(options, options.packageRules ?? derivedRequires(home, options.package));
  const registered = await running.request('PUT', `/v1/blueprints/${blueprint}`, { body: { yaml } });
  assert.equal(registered.status, 200, `Blueprint registration failed: ${registered.text}\n${yaml}`);
  const auditFrom = running.audit().length;
  const curated: Curated = {
    server: running,
    api,
    home,
    blueprint,
    async run(code, runOptions = {}) {
      const reply = await running.request('POST', '/v1/execute', {
        token: running.userToken,
        body: { blueprint, code, ...(runOptions.secrets ? { secrets: runOptions.secrets } : {}), ...(runOptions.variables ? { variables: runOptions.variables } : {}) },
      });
      assert.equal(reply.status, 200, reply.text);
      const result: string | null = reply.json.result ?? null;
      let value: any = result;
      try {
        value = result === null ? null : JSON.parse(result);
      } catch {
        value = result;
      }
      return { reply, result, value, error: reply.json.error ?? undefined };
    },
    async call(code, callOptions = {}) {
      const first = api.requests.length;
      const out = await curated.run(code, callOptions);
      assert.equal(out.error, undefined, JSON.stringify(out.error));
      assert.ok(out.value && typeof out.value === 'object', `unexpected result ${out.result}`);
      return { ...out.value, sent: api.requests.slice(first) };
    },
    decisions: (capability) => running.audit().slice(auditFrom).filter((record) => record.type === 'decision' && record.capability === capability),
    async close() {
      receiver = null;
    },
  };
  return curated;
}
