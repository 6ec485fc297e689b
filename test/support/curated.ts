// Integration set-up for the curated Packages (packages/<name>): publish one into a fresh
// SVC_HOME (copied from the real `svc build publish-local`'s output, published once per
// change: curated/published.ts), start the real server on that home with
// a loopback HTTPS stand-in playing the service under its real host names (port 443 on a
// loopback address, so the Package's literal base URL is used unchanged), register a
// Blueprint whose Package caller gets exactly the derived `requires` rules, and run programs.
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
import { curatedRoot, publishCurated } from './curated/published';
import { serverOptions, startStandIn, type StandIn, type StandInHandler, type StandInRequest } from './stand-in';

export { curatedRoot, publishCurated };

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
    ...(options.extra ?? {}),
  };
  return YAML.stringify(doc);
}

export async function startCurated(options: CuratedOptions): Promise<Curated> {
  const home = tempDir('svc-curated-');
  await publishCurated(home, options.package);
  const api = await startStandIn(options.hosts, options.handler, { defaultPort: true });
  let server: TestServer | undefined;
  try {
    server = await startServer({ home, ...serverOptions(api), timeoutMs: 60_000 });
    const yaml = blueprintYaml(options, options.packageRules ?? derivedRequires(home, options.package));
    const registered = await server.request('POST', '/v1/blueprints', { body: { yaml } });
    assert.ok(registered.status < 300, `Blueprint registration failed: ${registered.text}\n${yaml}`);
  } catch (error) {
    await server?.stop();
    await api.close();
    throw error;
  }
  const running = server;
  const blueprint = options.blueprint ?? 'curated';
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
    decisions: (capability) => running.audit({ type: 'decision', capability }),
    async close() {
      await running.stop();
      await api.close();
      fs.rmSync(home, { recursive: true, force: true });
    },
  };
  return curated;
}
