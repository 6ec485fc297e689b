// Telemetry (interface "Telemetry"): off by default. When on and `telemetry_endpoint` is
// set, usage counters, failed programs' error kind and first message line (source and full
// error only with `telemetry_include_source`) and crashes are POSTed as JSON reports
// (schema `svc.telemetry/1`, README "Telemetry"). Reports are batched, bounded in memory,
// sent off the request path and flushed at shutdown. They never carry client addresses,
// request headers, tokens or secret values; URLs, IP addresses and host names in messages
// are replaced by placeholders.
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import type { ServerLog } from '../audit';

export const TELEMETRY_SCHEMA = 'svc.telemetry/1';

/** Counters as cumulative totals since the process started; reports carry differences. */
export interface UsageTotals {
  sessions_opened: number;
  runs: Record<string, number>;
  lookups: Record<string, number>;
  blueprint_changes: Record<string, number>;
}

export interface FailureReport {
  at: string;
  entry_point: string;
  kind: string;
  message: string;
  source?: string;
  error?: string;
}

export interface CrashReport {
  at: string;
  error: string;
  message: string;
  frames: string[];
}

export interface TelemetryOptions {
  endpoint: string;
  includeSource: boolean;
  version: string;
  /** Where crash reports wait for the next start (the process is gone before it could send). */
  crashDir: string;
  log: ServerLog;
  usage: () => Promise<UsageTotals>;
  flushIntervalMs?: number;
  fetch?: typeof fetch;
}

const MAX_FAILURES = 100;
const FLUSH_AT_FAILURES = 50;
const MAX_MESSAGE_CHARS = 300;
const MAX_ERROR_CHARS = 4_096;
const MAX_SOURCE_CHARS = 16_384;
const MAX_CRASH_FILES = 10;
const SEND_TIMEOUT_MS = 5_000;

const COMMON_TLDS = 'com|net|org|io|dev|app|ai|co|uk|de|fr|eu|us|cloud|internal|local|localhost|test|example|invalid|svc';

/**
 * Removes what reports must never carry from a text: URLs, IP addresses, host names and
 * token-like strings (long runs of letters and digits such as keys and secrets).
 */
export function scrub(text: string): string {
  return text
    .replace(/\b[a-z][a-z0-9+.-]*:\/\/[^\s'"`<>)]+/gi, '<url>')
    .replace(/\b\d{1,3}(?:\.\d{1,3}){3}(?::\d+)?\b/g, (m) => (net.isIP(m.replace(/:\d+$/, '')) ? '<ip>' : m))
    .replace(/\[?[0-9a-f]*:[0-9a-f:.]*:[0-9a-f.]*\]?(?::\d+)?/gi, (m) => (net.isIP(m.replace(/^\[|\](?::\d+)?$/g, '')) === 6 ? '<ip>' : m))
    .replace(new RegExp(`\\b(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\\.)+(?:${COMMON_TLDS})\\b(?::\\d+)?`, 'gi'), '<host>')
    .replace(/\b(?=[A-Za-z0-9+/_=-]*\d)(?=[A-Za-z0-9+/_=-]*[A-Za-z])[A-Za-z0-9+/_=-]{20,}/g, '<redacted>');
}

function firstLine(text: string): string {
  const line = text.split('\n', 1)[0] ?? '';
  return line.length > MAX_MESSAGE_CHARS ? `${line.slice(0, MAX_MESSAGE_CHARS)}…` : line;
}

function cut(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

function difference(now: Record<string, number>, before: Record<string, number>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [key, value] of Object.entries(now)) {
    const delta = value - (before[key] ?? 0);
    if (delta > 0) out[key] = delta;
  }
  return out;
}

const zeroTotals = (): UsageTotals => ({ sessions_opened: 0, runs: {}, lookups: {}, blueprint_changes: {} });

export class Telemetry {
  private readonly instance = randomUUID();
  private failures: FailureReport[] = [];
  private failuresDropped = 0;
  private crashFiles: string[] = [];
  private sent: UsageTotals = zeroTotals();
  private periodStart = new Date();
  private timer: NodeJS.Timeout | null = null;
  private sending: Promise<void> | null = null;
  private closed = false;
  private warned = false;
  private readonly fetchFn: typeof fetch;

  constructor(private readonly options: TelemetryOptions) {
    this.fetchFn = options.fetch ?? fetch;
  }

  start(): void {
    this.crashFiles = this.pendingCrashFiles();
    this.timer = setInterval(() => void this.flush(), this.options.flushIntervalMs ?? 60_000);
    this.timer.unref();
  }

  /** A failed program: its kind and first message line (source and full error when opted in). Never throws. */
  failure(entryPoint: string, error: { kind: string; message: string }, code: string): void {
    if (this.closed) return;
    if (this.failures.length >= MAX_FAILURES) {
      this.failuresDropped++;
      return;
    }
    this.failures.push({
      at: new Date().toISOString(),
      entry_point: entryPoint,
      kind: error.kind,
      message: scrub(firstLine(error.message)),
      ...(this.options.includeSource ? { source: scrub(cut(code, MAX_SOURCE_CHARS)), error: scrub(cut(error.message, MAX_ERROR_CHARS)) } : {}),
    });
    if (this.failures.length >= FLUSH_AT_FAILURES) void this.flush();
  }

  /** Synchronous, for `uncaughtExceptionMonitor`: the report is sent by the next start. */
  recordCrash(error: unknown): void {
    try {
      const err = error instanceof Error ? error : new Error(String(error));
      const frames = (err.stack ?? '')
        .split('\n')
        .slice(1, 16)
        .map((line) => line.trim().replace(/\(?(?:file:\/\/)?\/[^():]*\/([^/():]+):(\d+):\d+\)?/, '($1:$2)'));
      const report: CrashReport = { at: new Date().toISOString(), error: err.name, message: scrub(firstLine(err.message)), frames: frames.map(scrub) };
      fs.mkdirSync(this.options.crashDir, { recursive: true, mode: 0o700 });
      if (fs.readdirSync(this.options.crashDir).length >= MAX_CRASH_FILES) return;
      fs.writeFileSync(path.join(this.options.crashDir, `crash-${Date.now()}-${process.pid}.json`), JSON.stringify(report), { mode: 0o600 });
    } catch {
      // Crashing already: nothing else to do.
    }
  }

  /** Sends what has gathered; one send at a time; never throws. */
  flush(): Promise<void> {
    if (this.sending) return this.sending;
    this.sending = this.send().finally(() => {
      this.sending = null;
    });
    return this.sending;
  }

  /** Stops the timer and sends the last report, giving up after `deadlineMs` (within the shutdown teardown budget). */
  async close(deadlineMs = 1_000): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.sending?.catch(() => undefined);
    const last = this.flush();
    this.closed = true;
    let timeout: NodeJS.Timeout | undefined;
    await Promise.race([last, new Promise<void>((resolve) => (timeout = setTimeout(resolve, deadlineMs)))]);
    clearTimeout(timeout);
  }

  private pendingCrashFiles(): string[] {
    try {
      return fs
        .readdirSync(this.options.crashDir)
        .filter((name) => /^crash-\d+-\d+\.json$/.test(name))
        .slice(0, MAX_CRASH_FILES)
        .map((name) => path.join(this.options.crashDir, name));
    } catch {
      return [];
    }
  }

  private async send(): Promise<void> {
    const totals = await this.options.usage().catch(() => this.sent);
    const usage = {
      sessions_opened: Math.max(0, totals.sessions_opened - this.sent.sessions_opened),
      runs: difference(totals.runs, this.sent.runs),
      lookups: difference(totals.lookups, this.sent.lookups),
      blueprint_changes: difference(totals.blueprint_changes, this.sent.blueprint_changes),
    };
    const crashFiles = this.crashFiles;
    const crashes = crashFiles.flatMap((file) => {
      try {
        return [JSON.parse(fs.readFileSync(file, 'utf8')) as CrashReport];
      } catch {
        return [];
      }
    });
    const failures = this.failures;
    const dropped = this.failuresDropped;
    const idle = usage.sessions_opened === 0 && [usage.runs, usage.lookups, usage.blueprint_changes].every((m) => Object.keys(m).length === 0);
    if (idle && failures.length === 0 && crashes.length === 0 && dropped === 0) return;

    const end = new Date();
    const body = {
      schema: TELEMETRY_SCHEMA,
      service: { name: 'svc-server', version: this.options.version, instance: this.instance, node: process.version, platform: `${process.platform}-${process.arch}` },
      period: { start: this.periodStart.toISOString(), end: end.toISOString() },
      usage,
      failures,
      ...(dropped > 0 ? { failures_dropped: dropped } : {}),
      crashes,
    };
    // Taken out of the queue now; put back (within the bound) if the send fails.
    this.failures = [];
    this.failuresDropped = 0;
    this.crashFiles = [];
    try {
      const response = await this.fetchFn(this.options.endpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'user-agent': `svc-server/${this.options.version}` },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(SEND_TIMEOUT_MS),
      });
      await response.arrayBuffer().catch(() => undefined);
      if (!response.ok) throw new Error(`the collector answered ${response.status}`);
      this.sent = structuredClone(totals);
      this.periodStart = end;
      for (const file of crashFiles) fs.rmSync(file, { force: true });
    } catch (error) {
      const merged = [...failures, ...this.failures];
      this.failuresDropped += dropped + Math.max(0, merged.length - MAX_FAILURES);
      this.failures = merged.slice(0, MAX_FAILURES);
      this.crashFiles = crashFiles;
      if (!this.warned) {
        this.warned = true;
        this.options.log.warn('svc_server::telemetry', 'telemetry report not delivered; will retry', { error: (error as Error).message });
      }
    }
  }
}

/** The running instance, for one-line hooks at failure sites (null: telemetry off). */
let active: Telemetry | null = null;

export function setActiveTelemetry(telemetry: Telemetry | null): void {
  active = telemetry;
}

/** Hook for the executor: a program failed. Does nothing when telemetry is off. */
export function reportRunFailure(entryPoint: string, error: { kind: string; message: string } | null, code: string): void {
  if (error && active) active.failure(entryPoint, error, code);
}
