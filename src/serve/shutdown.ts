// The shutdown drain: stop accepting, let in-flight handlers finish within the grace,
// cancel what is left at the deadline (or at once on a second signal), then tear down.
// Triggers: SIGTERM, SIGINT, POST /v1/shutdown. A trigger during boot is queued.
import type { ServerLog } from '../audit';
import type { Listener } from '../http';

export type StopTrigger = 'SIGTERM' | 'SIGINT' | 'api';

export interface ShutdownOptions {
  log: ServerLog;
  graceSeconds: number;
  /** Aborted at the deadline: handlers and runs observe it and end as cancelled. */
  cancel: AbortController;
  /** Releases everything after the drain (runners, database, logs); must not throw. */
  teardown: () => Promise<void>;
  exit: (code: number) => void;
  /** Runs in flight, asynchronous starts included (no handler waits for those): the drain waits for them too. */
  runs?: { readonly inFlight: number; idle(): Promise<void> };
}

/** How long cancelled handlers get to answer: the runner pool's cancel grace, plus a margin. */
const CANCELLED_ANSWER_MS = 2_000;

const triggerMessages: Record<StopTrigger, string> = {
  SIGTERM: 'SIGTERM received',
  SIGINT: 'SIGINT received',
  api: 'shutdown requested via /v1/shutdown',
};

export class ShutdownCoordinator {
  private listener: Listener | null = null;
  private started = false;
  private queued: StopTrigger | null = null;
  private skipWait: (() => void) | null = null;
  private secondSignal = false;

  constructor(private readonly options: ShutdownOptions) {}

  get draining(): boolean {
    return this.started;
  }

  /** Called once the listener is bound; runs a stop that arrived during boot. */
  serving(listener: Listener): void {
    this.listener = listener;
    if (this.queued) void this.stop(this.queued);
  }

  /** Installs SIGTERM/SIGINT handlers; a second signal skips the remaining wait. */
  installSignalHandlers(): void {
    for (const signal of ['SIGTERM', 'SIGINT'] as const) {
      process.on(signal, () => void this.stop(signal));
    }
  }

  async stop(trigger: StopTrigger): Promise<void> {
    const { log } = this.options;
    if (this.started) {
      if (trigger !== 'api' && !this.secondSignal) {
        this.secondSignal = true;
        log.info('svc_server::serve', triggerMessages[trigger]);
        this.skipWait?.();
      }
      return;
    }
    if (!this.listener) {
      this.queued = trigger;
      return;
    }
    this.started = true;
    log.info('svc_server::serve', triggerMessages[trigger]);
    const listener = this.listener;
    listener.stopAccepting();

    const cause = await this.waitForHandlers(listener);
    if (cause !== null) {
      log.warn('svc_server::serve', 'stopped waiting with requests still in flight; their connections are dropped', {
        cause,
        grace_secs: this.options.graceSeconds,
      });
      this.options.cancel.abort();
      // Give cancelled handlers time to write their answers and audit records: a run
      // computing on its runner answers when the runner confirms the cancel, or when the
      // pool replaces that runner after its 1 s cancel grace; only a handler stuck past
      // that loses its connection.
      await Promise.race([Promise.all([listener.idle(), this.options.runs?.idle()]), delay(CANCELLED_ANSWER_MS)]);
      listener.dropAll();
    }
    await this.options.teardown();
    this.options.exit(0);
  }

  /** Resolves null when all handlers finished, else why the wait ended. */
  private waitForHandlers(listener: Listener): Promise<'grace elapsed' | 'second signal' | null> {
    if (listener.inFlight() === 0 && (this.options.runs?.inFlight ?? 0) === 0) return Promise.resolve(null);
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve('grace elapsed'), this.options.graceSeconds * 1000);
      this.skipWait = () => {
        clearTimeout(timer);
        resolve('second signal');
      };
      void Promise.all([listener.idle(), this.options.runs?.idle()]).then(() => {
        clearTimeout(timer);
        resolve(null);
      });
    });
  }
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
