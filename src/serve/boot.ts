// The composition root: builds every service from the settings in the documented startup
// order, binds the listener, and wires the shutdown drain. Nothing else
// constructs services, so each module receives exactly what it needs.
import { AuthRefusalAudit, openLogOutputs, type LogOutputs } from '../audit';
import { computeSettingsHash, type Settings } from '../config';
import { randomUUID } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import path from 'node:path';
import { BlueprintRegistry, type Blueprint } from '../blueprints';
import { Executor, HostCallSlots } from '../execution';
import { createApp, startListener, type Listener, type RouteDependencies } from '../http';
import { lookupCounters } from '../discovery';
import { McpEndpoint } from '../mcp';
import { McpDiscovery, McpRun, mcpViews } from '../mcp/client';
import { OAuthService, TokenManager } from '../mcp/oauth';
import { JournalStore, ParkedRuns, RunTapes } from '../journal';
import { embedPackageCode, stampedDigests, PackageRuntime, PackageService, packageRequirements, storeLookup } from '../packages';
import { ResumeStore, RunStore } from '../runs';
import { Approvals } from '../approvals';
import { SecretStore } from '../secrets';
import { fillGit, startSessionServices } from '../sessions';
import { hostModules, hostTask, ModelBudgets, SessionStates, takesTextAsBytes, type RunServices } from '../stdlib';
import { closeDatabase, openDatabase } from '../store';
import { FileAreas } from '../vfs';
import { EgressGuard, NetworkThread, programsDispatcher, settingsThatAllow, type BlockedKind } from '../network';
import { serverEgressDecision } from '../policy';
import { argsFromDecoded, RunnerPool, Typechecker, configureCompileWorkers } from '../../sandbox';
import { ThreadHeaps } from '../../sandbox/thread-heap';
import { compactWhenFragmented } from './heap-compaction';
import { confineRunners } from './runner-sandbox';
import { scavengeWithoutHelpers } from './young-collections';
import { ShutdownCoordinator } from './shutdown';
import { logStartupPosture } from './posture';
import { bindServerState, counterTotals, metrics, observedAuditWriter } from '../metrics';
import { setActiveTelemetry, Telemetry } from '../telemetry';

/** Registered Blueprints readied at start (each its Packages and a warm checker; the checker threads keep 16). */
const WARM_BLUEPRINTS_AT_START = 16;

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
    onAuditWriteFailure: () => metrics.auditWriteFailures.inc(),
  });
  const { log } = outputs;
  const audit = observedAuditWriter(outputs.audit);
  const closers: Closer[] = [];
  const cancel = new AbortController();
  // Every run in flight listens for the server's cancellation (and stops listening when it
  // ends), so more than ten at once is normal, not a leak.
  setMaxListeners(0, cancel.signal);

  // Set once the run store exists (the drain waits for asynchronous runs too).
  let runStore: RunStore | undefined;
  const shutdown = new ShutdownCoordinator({
    log,
    runs: { get inFlight() { return runStore?.inFlight ?? 0; }, idle: () => runStore?.idle() ?? Promise.resolve() },
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
  const telemetry = startTelemetry(settings, options.version, log, closers);
  // The runner sandbox probe (a Node start or two through the wrappers) overlaps loading the state.
  const confinementProbe = confineRunners(settings, log);
  confinementProbe.catch(() => {}); // awaited below; a failed boot before then must not add an unhandled rejection

  // State, in the documented startup order.
  const db = openDatabase(settings.paths.databasePath, undefined, settings.limits.database_cache_size);
  closers.push(() => closeDatabase(db));
  // Run records: those the last process left unfinished end now (the journal's resume hooks in here).
  const runs = new RunStore({ db, log, retentionMs: settings.runs.retentionMs, maxBytes: settings.runs.maxBytes });
  // Runs parked for approval when the last server stopped stay waiting, to resume from their journal.
  const resumes = new ResumeStore(db);
  const parkedRuns = new ParkedRuns({ resumes, log });
  runs.recoverAtBoot(parkedRuns.recover);
  runStore = runs;
  closers.push(() => runs.close());
  const secretStore = new SecretStore(settings.secretStore.dir, settings.secretStore.key);
  secretStore.verifyKey();
  const packages = new PackageService(
    {
      owned: settings.paths.packageStoreDir,
      fallback: settings.paths.packageFallbackDir,
      apiUrl: settings.githubApiUrl,
      tokenFile: settings.githubTokenFile,
      denyWarnings: settings.denyWarnings,
      svcVersion: options.version,
      officialRepository: settings.officialRepository,
    },
    (name, error) => log.warn('svc_server::packages', 'package artifact cannot be loaded', { package: name, error: error.message }),
  );
  const registry = new BlueprintRegistry(
    db,
    {
      volumes: settings.volumes,
      secretStoreEnabled: secretStore.enabled,
      hasSecret: (key) => secretStore.has(key),
      isPackageInstalled: (name) => packages.loadable(name) !== null,
      packageRequirements: (name) => packageRequirements(packages.loadable(name)),
    },
    log,
  );
  registry.load();
  registry.importDirectory(settings.paths.blueprintDir);

  const confinement = await confinementProbe;
  const pool = new RunnerPool({
    confinement,
    size: settings.runnerPoolSize,
    memoryMb: settings.limits.max_execution_memory,
    runsPerRunner: settings.admission.runsPerRunner,
    parkedRuns: settings.admission.runsParked,
    ...(settings.runnerHeartbeatTimeoutSeconds === null ? {} : { heartbeatTimeoutMs: settings.runnerHeartbeatTimeoutSeconds * 1000 }),
    memoryRecycleMb: settings.runnerMemoryRecycleMb,
    runnerNice: settings.runnerNice,
    ...(settings.runnerShelfFloor === null ? {} : { shelfFloor: settings.runnerShelfFloor }),
    ...(settings.admission.computingRuns === null ? {} : { computingRuns: settings.admission.computingRuns }),
    admission: {
      runsInFlight: settings.admission.runsInFlight,
      memoryMb: settings.admission.runsMemoryMb,
      queued: settings.admission.queuedRuns,
      runsPerToken: settings.admission.runsInFlightPerToken,
      queuedPerToken: settings.admission.queuedRunsPerToken,
    },
    onLog: (level, msg, fields) => log[level]('svc_server::sandbox', msg, fields),
    onRefused: (token, quota) => metrics.tokenQuotaRefusals.inc({ token, quota }),
    onRestart: (reason) => metrics.runnerRestarts.inc({ reason }),
    // Large host-call arguments are parsed in the host worker threads, off the event loop.
    // A file's content among them stays bytes (moved back, not copied, nor re-encoded here).
    decodeLargeArgs: (text, tenant, signal, call) =>
      hostTask('host-call-args', { text, textAsBytes: takesTextAsBytes(call.module, call.op), call: { module: call.module, op: call.op } }, {
        signal,
        tenant,
        what: 'decoding the call\'s arguments',
        // Pieces (each in a buffer of its own, sandbox/pool/args-pieces.ts) move to the worker.
        transfer: typeof text === 'string' ? [] : text.map((piece) => piece.buffer as ArrayBuffer),
      }).then(argsFromDecoded),
  });
  await pool.start();
  closers.push(() => pool.stop());
  const fileAreas = new FileAreas(settings);
  closers.push(() => fileAreas.close());
  void fileAreas.sweepLeftovers();
  const sessionStates = new SessionStates(settings.limits.max_session_state_memory, settings.limits.max_session_state_memory_per_token);
  /** svc:git per run: the identity filled from the session's variables, GIT_TOKEN on demand. */
  const gitServices = (blueprint: Blueprint, variables: Readonly<Record<string, string>>, secretValue: (name: string) => string | undefined) => {
    if (!blueprint.git) return undefined;
    const filled = fillGit(blueprint.git, { ...variables });
    return {
      identity: filled.ok && filled.value ? filled.value.identity : null,
      ...(filled.ok ? {} : { identityProblem: filled.error }),
      username: filled.ok && filled.value ? filled.value.username : undefined,
      token: () => secretValue('GIT_TOKEN'),
      dispatcher: outbound,
    };
  };
  // Every refused destination is logged for the operator with the setting that would allow it.
  const logBlocked = (host: string, kinds: BlockedKind[]) => log.warn('svc_server::network', 'outbound connection blocked', { host, kinds: [...new Set(kinds)].join(','), allowed_by: settingsThatAllow(kinds) });
  const egress = new EgressGuard({ grants: settings.network, hosts: settings.network.hosts, onBlocked: logBlocked });
  const outbound = egress.dispatcher();
  const modelBudgets = new ModelBudgets(settings.limits, outbound);
  closers.push(() => outbound.close());
  // Programs' fetch and svc:http requests are sent from the network thread: their sockets,
  // parsers and read buffers are collected there, not in pauses of this event loop.
  const programsOutbound = programsDispatcher({
    grants: settings.network,
    hosts: settings.network.hosts,
    heapMb: settings.limits.network_thread_memory,
    onBlocked: logBlocked,
    countConnection: (outcome, count) => metrics.outboundCalls.inc({ outcome }, count),
    onStopped: (reason, lost) => {
      const cause = reason.startsWith('ran out of memory') ? 'memory' : 'failed';
      metrics.networkThreadsReplaced.inc({ reason: cause });
      log.warn('svc_server::network', 'network thread replaced', { reason, requests_lost: lost });
    },
  });
  closers.push(() => programsOutbound.close());
  // MCP client: OAuth logins and their tokens, discovery of upstream servers.
  const oauth = new OAuthService({
    store: secretStore,
    providers: settings.mcpOAuthProviders,
    dispatcher: outbound,
    resolveBlueprint: (name) => registry.get(name) ?? undefined,
    onCredentialChange: (blueprint, server) => {
      mcpDiscovery.evict(blueprint);
      void tokens.clear(blueprint, server);
    },
  });
  const tokens = new TokenManager({ service: oauth, dispatcher: outbound });
  const mcpDiscovery = new McpDiscovery({
    dispatcher: outbound,
    storeSecret: (key) => secretStore.get(key),
    tokens: (blueprint, server, failed) => tokens.token(blueprint, server, failed),
    log,
    version: options.version,
    // A refusal outside any operation: caller `server`, capability `network.egress`.
    onBlocked: (blueprint, server, blocked) =>
      audit.write({
        ...serverEgressDecision({ blueprint: blueprint.name, blueprint_hash: blueprint.hash, principal: 'server' }, { host: blocked.host, server }),
        allowed_by: settingsThatAllow(blocked.kinds),
      }),
  });
  registry.onDeleted((name) => mcpDiscovery.evict(name));
  /**
   * Per-run services: the file area, svc:session state, and secret values for Packages. The
   * Blueprint is the object the run was resolved with (never looked up again by name), so a
   * Blueprint replaced mid-run cannot mix two versions' policy and secrets/models/auth_proxy.
   */
  const runServices = (
    sessionId: string,
    principal: string,
    vfs: Parameters<FileAreas['open']>[0],
    secrets: { blueprint: Blueprint; harness: Readonly<Record<string, string>>; variables: Readonly<Record<string, string>> },
    throwaway: boolean,
  ): RunServices => {
    const files = fileAreas.open(vfs, { sessionId, runId: randomUUID(), principal }, { throwaway });
    const { blueprint } = secrets;
    const secretValue = (name: string) => {
      const declaration = blueprint.declarations.secrets.get(name);
      if (!declaration) return undefined;
      return declaration.source === 'store' ? secretStore.reveal(declaration.key) : secrets.harness[name];
    };
    // `@mcp/` servers: discovered for the run's imports, upstream sessions closed when it ends.
    const mcp = Object.keys(blueprint.mcp).length > 0 ? new McpRun({ blueprint, scope: { sessionId, harness: secrets.harness }, discovery: mcpDiscovery, dispatcher: outbound, version: options.version }) : undefined;
    return {
      files,
      ...(mcp ? { mcp } : {}),
      sessionState: { state: sessionStates.of(sessionId, principal), states: sessionStates },
      secretValue,
      git: gitServices(blueprint, secrets.variables, secretValue),
      models: modelBudgets.forRun(blueprint.llm, secretValue, principal),
      http: {
        allowInsecureHttp: blueprint.allowInsecureHttp,
        authProxy: blueprint.authProxy,
        secretValue,
        dispatcher: programsOutbound,
        userAgent: `svc/${options.version}`,
      },
      endOfRun: () => {
        files.release();
        void mcp?.close();
        // A one-off run's state is discarded when it returns.
        if (throwaway) sessionStates.drop(sessionId);
      },
    };
  };

  const moduleTable = hostModules();
  // Prepared Packages per Blueprint, reused while the store's files are unchanged (a CLI
  // `publish-local` into the fallback store takes effect on the next run) and dropped
  // after every install or removal.
  const svcModuleNames = () => [...moduleTable.keys()].filter((name) => name.startsWith('svc:'));
  const packageRuntime = new PackageRuntime(
    storeLookup(packages.store),
    svcModuleNames,
    (name) => packages.store.stamp(name),
  );
  packages.onChange(() => packageRuntime.evict());
  // Tapes embed a Package's code after checking it still compiles to the run's digest; once per installed version.
  const tapeDigests = stampedDigests((name) => packages.store.stamp(name));
  configureCompileWorkers({ heapMb: settings.limits.compile_thread_memory, recycleAfter: settings.limits.compile_thread_recycle, onRecycle: () => metrics.compileThreadRecycles.inc() });
  // Programs are type-checked in a worker thread, started by the first check or
  // `typecheck_warm_after` after listening or a Blueprint's registration, whichever comes
  // first; its warm checkers follow the declaration sets.
  const typecheck = new Typechecker({
    largeProgramBytes: settings.limits.typecheck_large_program * 1024,
    budgetMs: settings.limits.typecheck_budget * 1000,
    heapMb: settings.limits.typecheck_thread_memory,
    codeCacheDirectory: settings.paths.codeCacheDir,
    onNotice: (message) => log.warn('svc_server::typecheck', message),
  });
  closers.push(() => typecheck.close());
  // `ask-human` calls wait here for a person; the run's record says so while any call waits.
  // An approval answered after a restart resumes its parked run from the journal.
  const approvals = new Approvals({ db, audit, shutdown: cancel.signal, onWaiting: (executionId, waiting) => void runs.setState(executionId, waiting ? 'waiting_for_approval' : 'running'), onAnsweredWithoutRun: parkedRuns.answered });
  approvals.start();
  closers.push(() => approvals.close());
  const hostCalls = new HostCallSlots({ total: settings.limits.max_server_host_calls_in_flight, perToken: settings.limits.max_host_calls_in_flight_per_token });
  // Run journals (tapes, replay, fork), kept as long as their runs' records.
  const journalStore = new JournalStore(db, { retentionMs: settings.runs.retentionMs, maxBytes: settings.runs.maxBytes });
  runs.onDropped((executionIds) => journalStore.drop(executionIds));
  closers.push(() => journalStore.flush());
  const tapes = new RunTapes(journalStore);
  const executor = new Executor<Blueprint>({
    journals: tapes,
    pool,
    hostCalls,
    approvals,
    packages: packageRuntime,
    typecheck,
    shutdown: cancel.signal,
    runServices: (run) => runServices(run.sessionId, run.principal, run.fileArea, { blueprint: run.blueprint, harness: run.harnessSecrets, variables: run.variables }, run.throwaway),
    modules: moduleTable,
    audit,
    log,
    limits: settings.limits,
    allows: settings.logging.audit.allows,
    newId: randomUUID,
    runs,
    resumes,
  });
  parkedRuns.connect({ executor, approvals, resolveBlueprint: (name) => registry.get(name) ?? undefined, adopt: (executionId) => runs.adopt(executionId) });

  let mcpEndpoint: McpEndpoint | null = null;
  const { sessions, ledger } = startSessionServices({
    sessionStoreDir: settings.paths.sessionStoreDir,
    lastRunBytes: settings.limits.max_last_run_memory * 1024 * 1024,
    sessionsPerToken: settings.limits.max_sessions_per_token,
    ledgerBounds: {
      recordsPerSession: settings.limits.max_idempotency_records,
      bytesPerSession: settings.limits.max_idempotency_session_size * 1024 * 1024,
      totalBytes: settings.limits.max_idempotency_size * 1024 * 1024,
      bytesPerToken: settings.limits.max_idempotency_token_size * 1024 * 1024,
    },
    vfsSessionDir: settings.paths.vfsSessionDir,
    db,
    audit,
    log,
    resolveBlueprint: (name) => registry.get(name),
    onSessionEnded: (sessionId) => {
      sessionStates.drop(sessionId);
      // Null only during boot recovery, before the endpoint exists (it holds nothing then).
      mcpEndpoint?.sessionEnded(sessionId);
      mcpDiscovery.forgetSession(sessionId);
    },
    reapIntervalMs: settings.sessionReapIntervalSeconds * 1000,
  });
  closers.push(() => sessions.close());
  fileAreas.countExisting(sessions.perSessionAreas());
  registry.onDeleted((name, principal) => sessions.evictBlueprint(name, principal));

  let listener: Listener | null = null;
  const mcp = new McpEndpoint({
    registry,
    sessions,
    executor,
    modules: hostModules(),
    packages: (name) => packages.describe(name),
    audit,
    allows: settings.logging.audit.allows,
    allowedHosts: settings.mcpAllowedHosts,
    servicesFor: (session, blueprint) => runServices(session.id, session.principal, session.fileArea, { blueprint, harness: session.secrets, variables: session.variables }, false),
    version: options.version,
    mcpViews: (blueprint, session) => (only) => mcpViews(mcpDiscovery, blueprint, { sessionId: session.id, harness: session.secrets }, only),
  });
  mcpEndpoint = mcp;
  /** What each route group needs (src/http/route-table.ts lists the groups and mounts them). */
  const routes: RouteDependencies = {
    ops: {
      audit,
      boundAddress: () => listener?.address ?? `${settings.bind}:${settings.port}`,
      activeSessions: () => sessions.activeCount(),
      blueprintNames: () => registry.names(),
      volumeNames: () => settings.volumes.map((volume) => volume.name),
      counters: () => ({ ...lookupCounters }),
      tokenBudgets: () => modelBudgets.status(),
      runnerSandbox: () => ({ level: confinement.level, features: [...confinement.features], missing: [...confinement.missing] }),
      requestShutdown: (trigger) => void shutdown.stop(trigger),
    },
    discovery: { registry, modules: hostModules(), packages: (name) => packages.describe(name), mcpViews: (blueprint, only) => mcpViews(mcpDiscovery, blueprint, {}, only) },
    blueprints: { registry, audit, log, packageCapabilities: () => packages.capabilities() },
    secrets: { store: secretStore, audit, log },
    packages: { packages, audit, log },
    mcpOAuth: { oauth, audit, log },
    execute: {
      executor,
      resolveBlueprint: (name) => registry.get(name),
      rememberLastRun: (sessionId, lastRun, owner) => sessions.rememberOneOffRun(sessionId, lastRun, owner),
      newId: randomUUID,
    },
    mcp,
    sessions: { sessions, executor, ledger, newId: randomUUID },
    runs: { runs },
    approvals: { approvals, audit },
    tapes: { tapes, executor, resolveBlueprint: (name) => registry.get(name), newId: randomUUID, log, packageCode: (recorded) => embedPackageCode(recorded, storeLookup(packages.store), svcModuleNames(), { memo: tapeDigests }) },
    openapi: { version: options.version },
  };
  const threadHeaps = new ThreadHeaps();
  compactWhenFragmented();
  scavengeWithoutHelpers();
  bindServerState({
    poolSize: () => settings.runnerPoolSize,
    queueDepth: () => pool.queueDepth,
    cpuSlots: () => pool.cpuSlots,
    parkedRuns: () => pool.parkedRuns,
    openSessions: () => sessions.activeCount(),
    mcpTransports: () => mcp.transportCount,
    typechecksRunning: () => typecheck.running,
    typecheckersWarmed: () => typecheck.warmedAhead,
    typecheckCold: () => typecheck.cold,
    typecheckThreadsReplaced: () => typecheck.replacedThreads,
    networkThreadRequests: () => (programsOutbound instanceof NetworkThread ? programsOutbound.inFlight : 0),
    typecheckHeap: () => typecheck.heaps.reduce((sum, heap) => ({ used: sum.used + heap.used, total: sum.total + heap.total }), { used: 0, total: 0 }),
    threadHeaps: () => threadHeaps.heaps(),
    lookups: () => ({ ...lookupCounters }),
    tokens: () => modelBudgets.status(),
    connections: () => listener?.connections() ?? { authenticated: 0, unauthenticated: 0 },
    quotaUse: () => [
      ...[...pool.runsByTenant()].flatMap(([token, runs]) => [
        { token, quota: 'max_runs_in_flight_per_token', use: runs.inFlight },
        { token, quota: 'max_queued_runs_per_token', use: runs.queued },
      ]),
      ...[...pool.parkedByTenant()].map(([token, use]) => ({ token, quota: 'max_runs_parked', use })),
      ...[...sessions.openByOwner()].map(([token, use]) => ({ token, quota: 'max_sessions_per_token', use })),
      ...[...hostCalls.perToken()].map(([token, calls]) => ({ token, quota: 'max_host_calls_in_flight_per_token', use: calls.inFlight })),
      ...[...sessionStates.perToken()].map(([token, use]) => ({ token, quota: 'max_session_state_memory_per_token', use })),
      ...[...(ledger?.bytesPerOwner() ?? [])].map(([token, use]) => ({ token, quota: 'max_idempotency_token_size', use })),
      ...[...runs.bytesPerOwner()].map(([token, use]) => ({ token, quota: 'max_run_store_size', use })),
      ...modelBudgets.perToken().flatMap(({ token, model, embedding }) => [
        { token, quota: 'max_llm_tokens_per_token', use: model },
        { token, quota: 'max_embedding_tokens_per_token', use: embedding },
      ]),
    ],
  });

  const authRefusals = new AuthRefusalAudit(audit);
  closers.push(() => authRefusals.close());
  const app = createApp({
    tokens: settings.tokens,
    allowUnauthenticated: settings.allowUnauthenticated,
    audit,
    authRefusals,
    log,
    draining: () => shutdown.draining,
    cancelSignal: cancel.signal,
    routes,
  });

  // First step of the teardown: the last report starts while runners and stores close.
  if (telemetry) closers.push(() => void telemetry.flush());

  listener = await startListener(app, {
    bind: settings.bind,
    port: settings.port,
    tls: settings.tls ? { cert: settings.tls.cert, key: settings.tls.key } : null,
    connections: {
      total: settings.connections.total,
      perAddress: settings.connections.perAddress,
      unauthenticated: settings.connections.unauthenticated,
      headerTimeoutMs: settings.connections.headerTimeoutSeconds * 1000,
    },
    beforeAnswer: outputs.flush,
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
  // What a first run would wait for (the type checker, a Blueprint's Packages and checker)
  // is readied in the background, `typecheck_warm_after` after listening (at once by
  // default) and after each Blueprint is applied, so the first program answers as the
  // second does. The registered Blueprints warm first-come, up to the warm checkers kept.
  const warmAfterMs = settings.limits.typecheck_warm_after * 1000;
  const warmLater = (blueprints: readonly Blueprint[]) => {
    const timer = setTimeout(() => {
      // The services a one-off run has, as far as they decide its modules (models always, git with the Blueprint's section).
      for (const blueprint of blueprints) void executor.warm(blueprint, { models: modelBudgets.forRun(blueprint.llm ?? {}, () => undefined), git: gitServices(blueprint, {}, () => undefined) }).catch(() => {});
    }, warmAfterMs);
    timer.unref();
  };
  typecheck.warmAfter(warmAfterMs);
  warmLater(registry.usable().slice(0, WARM_BLUEPRINTS_AT_START));
  registry.onStored((blueprint) => warmLater([blueprint]));
  shutdown.serving(listener);
}

/**
 * Telemetry runs only when it is on and has an endpoint. Usage counters come from the
 * metrics registry; the last report is sent at teardown (closers run in reverse, so this
 * one, pushed first, runs after every run has finished).
 */
function startTelemetry(settings: Settings, version: string, log: LogOutputs['log'], closers: Closer[]): Telemetry | null {
  if (!settings.telemetry || settings.telemetryEndpoint === null) return null;
  const telemetry = new Telemetry({
    endpoint: settings.telemetryEndpoint,
    includeSource: settings.telemetryIncludeSource,
    version,
    crashDir: path.join(settings.home, 'server', 'telemetry'),
    log,
    usage: async () => ({
      sessions_opened: (await counterTotals('svc_sessions_opened_total')).total ?? 0,
      runs: await counterTotals('svc_runs_total', 'outcome'),
      lookups: await counterTotals('svc_discovery_lookups_total', 'kind'),
      blueprint_changes: await counterTotals('svc_blueprint_changes_total', 'event'),
    }),
  });
  telemetry.start();
  setActiveTelemetry(telemetry);
  process.on('uncaughtExceptionMonitor', (error) => telemetry.recordCrash(error));
  closers.push(() => telemetry.close());
  log.info('svc_server::telemetry', 'telemetry reports are sent', { endpoint: new URL(settings.telemetryEndpoint).origin });
  return telemetry;
}
