// The thin adapter between `svc run` (local) and the server's execution layer: the same
// Executor, runner pool, standard library, file areas and egress guard the server uses,
// assembled for one run in this process with no audit trail and no server log. Only this
// file knows the Executor's API, so changes to the run path touch one place here.
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { discardAudit, silentLog } from '../audit';
import type { Blueprint } from '../blueprints';
import type { RunSettings, Settings } from '../config';
import { Executor, type ExecutionReport } from '../execution';
import { EgressGuard } from '../network';
import { PackageRuntime, type PackageLookup } from '../packages';
import { fillGit, type FilledFileArea } from '../sessions';
import { hostModules, ModelBudgets, SessionStates, type RunServices } from '../stdlib';
import { FileAreas } from '../vfs';
import { RunnerPool, Typechecker } from '../../sandbox';
import { envValue, type CliIo } from './io';

export interface LocalRun {
  code: string;
  blueprint: Blueprint;
  /** Bound variables (declarations checked, defaults applied). */
  variables: Record<string, string>;
  /** Secret values by declared name, for both `store` and `harness` secrets. */
  secrets: Record<string, string>;
  fileArea: FilledFileArea;
  settings: RunSettings;
  userAgent: string;
  /** Where the Blueprint's Packages come from (the CLI's store, or a project's fresh build). */
  packages: PackageLookup;
  /** The CLI process's checker (`localTypechecker`). */
  typechecker: Typechecker;
  /** A started pool (from `localPool`) that outlives this run: `svc build test` runs every test program in one. Default: a pool for this run only. */
  pool?: RunnerPool;
  /** The Package test runner: svc:test, every check observed, secrets from its own sources. */
  packageTests?: {
    label: (description: string) => void;
    observeCheck: (caller: string, capability: string, context: Record<string, unknown>) => void;
    secretValue: (name: string) => string | undefined;
  };
}

/**
 * One checker for the CLI process: `svc build test` checks many programs and readme examples
 * against few declaration sets. It checks in this thread, not in checker threads: a command
 * then loads TypeScript once for its build and its checks, and starts no threads that load
 * the compiler and the libraries again (with the build sharing the checker's parsed libraries,
 * `svc build test` 2.6 -> 1.8 CPU-s). Its compiler code cache stays in $SVC_HOME/cli/cache
 * (SVC_CLI_CODE_CACHE_DIR when set: the test suite shares one over its commands, each with a
 * fresh SVC_HOME), so the next command loads TypeScript warm. Made before a command's first build, which then loads through that cache.
 */
let typechecker: Typechecker | null = null;
export const localTypechecker = (io: CliIo, home: string): Typechecker =>
  (typechecker ??= new Typechecker({ worker: false, codeCacheDirectory: envValue(io, 'SVC_CLI_CODE_CACHE_DIR') ?? path.join(home, 'cli', 'cache') }));

/** The runner pool of a local run: one runner process. */
export function localPool(settings: RunSettings): RunnerPool {
  return new RunnerPool({ size: 1, memoryMb: settings.limits.max_execution_memory });
}

export async function runLocally(run: LocalRun): Promise<ExecutionReport> {
  const { blueprint, settings } = run;
  // Scratch space of this process only, removed afterwards.
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-run-'));
  const fileAreas = new FileAreas({ paths: scratchPaths(scratch), volumes: [], limits: settings.limits });
  const outbound = new EgressGuard({ grants: settings.network, hosts: settings.network.hosts }).dispatcher();
  const pool = run.pool ?? localPool(settings);
  const sessionId = randomUUID();
  const sessionStates = new SessionStates(settings.limits.max_session_state_memory);
  try {
    if (!run.pool) await pool.start();
    const secretValue = run.packageTests?.secretValue ?? ((name: string) => (blueprint.declarations.secrets.has(name) ? run.secrets[name] : undefined));
    const git = fillGit(blueprint.git, run.variables);
    const models = new ModelBudgets(settings.limits, outbound);
    // `@mcp/` servers with static headers; a store secret's value is the one passed for its declared name.
    const storeSecret = (key: string) => {
      for (const [name, d] of blueprint.declarations.secrets) if (d.source === 'store' && d.key === key) return run.secrets[name];
      return undefined;
    };
    const version = run.userAgent.replace(/^svc\//, '');
    // The MCP client (its SDK and JSON Schema validator) loads only for a Blueprint with `mcp:` servers.
    const mcpClient = Object.keys(blueprint.mcp).length > 0 ? await import('../mcp/client') : null;
    const mcpDiscovery = mcpClient ? new mcpClient.McpDiscovery({ dispatcher: outbound, storeSecret, log: silentLog, version }) : null;
    const services = (): RunServices => {
      const files = fileAreas.open(run.fileArea, { sessionId, runId: randomUUID() }, { throwaway: true });
      const mcp = mcpClient && mcpDiscovery ? new mcpClient.McpRun({ blueprint, scope: { sessionId, harness: run.secrets }, discovery: mcpDiscovery, dispatcher: outbound, version }) : undefined;
      return {
        files,
        sessionState: { state: sessionStates.of(sessionId, 'local'), states: sessionStates },
        secretValue,
        git: blueprint.git
          ? {
              identity: git.ok && git.value ? git.value.identity : null,
              ...(git.ok ? {} : { identityProblem: git.error }),
              username: git.ok && git.value ? git.value.username : undefined,
              token: () => secretValue('GIT_TOKEN'),
              dispatcher: outbound,
            }
          : undefined,
        models: models.forRun(blueprint.llm ?? {}, secretValue),
        http: { allowInsecureHttp: blueprint.allowInsecureHttp, authProxy: blueprint.authProxy, secretValue, dispatcher: outbound, userAgent: run.userAgent },
        ...(mcp ? { mcp } : {}),
        ...(run.packageTests ? { testLabel: run.packageTests.label, observeCheck: run.packageTests.observeCheck } : {}),
        endOfRun: () => {
          files.release();
          void mcp?.close();
        },
      };
    };
    const modules = hostModules({ packageTests: run.packageTests !== undefined });
    const svcModules = [...modules.keys()];
    const executor = new Executor<Blueprint>({
      pool,
      packages: new PackageRuntime(run.packages, () => svcModules),
      typecheck: run.typechecker,
      // A local run is never cancelled from outside; the run's own limits end it.
      shutdown: new AbortController().signal,
      runServices: services,
      modules,
      audit: discardAudit,
      log: silentLog,
      limits: settings.limits,
      allows: 'none',
      newId: randomUUID,
    });
    return await executor.execute({
      entryPoint: 'http',
      principal: 'local',
      sessionId,
      blueprint,
      variables: run.variables,
      cwd: run.fileArea.cwd,
      code: run.code,
      fileArea: run.fileArea,
      harnessSecrets: run.secrets,
      throwaway: true,
    });
  } finally {
    if (!run.pool) await pool.stop();
    await outbound.close();
    fileAreas.close();
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

/** Every server path points into the run's scratch directory: a local run keeps nothing. */
function scratchPaths(scratch: string): Settings['paths'] {
  return {
    databasePath: ':memory:',
    blueprintDir: scratch,
    sessionStoreDir: scratch,
    vfsSessionDir: path.join(scratch, 'sessions'),
    vfsEphemeralDir: scratch,
    vfsEphemeralDirExplicit: true,
    packageStoreDir: scratch,
    packageFallbackDir: scratch,
    volumeDir: scratch,
    codeCacheDir: scratch,
  };
}
