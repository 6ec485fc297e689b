// Runs parked for approval by the last server, resumed by this one: at boot their records
// stay `waiting_for_approval` (their resume state is kept, src/runs/resumes.ts); when one of
// their approvals is answered (approved, denied or expired; REST, CLI or MCP) the run runs
// again from its journal under the same execution id — nothing it did is done again, the
// answered call meets the gate live with its answer — and its result lands in its record.
import type { ServerLog } from '../audit';
import type { Approval, Approvals } from '../approvals';
import type { Blueprint } from '../blueprints';
import type { Executor } from '../execution';
import type { ResumeStore, RunHandle, RunRecord } from '../runs';
import { bindBlueprint } from '../sessions';

export interface ParkedRunsOptions {
  resumes: ResumeStore;
  log: ServerLog;
}

/** What resuming needs once the server's parts exist (boot wires them after the run store). */
export interface ResumeParts {
  executor: Executor<Blueprint>;
  approvals: Approvals;
  resolveBlueprint: (name: string) => Blueprint | undefined;
  adopt: (executionId: string) => RunHandle | null;
}

export class ParkedRuns {
  /** Runs the last server left parked, not resumed yet. */
  private readonly waiting = new Set<string>();
  private parts: ResumeParts | null = null;

  constructor(private readonly options: ParkedRunsOptions) {}

  /** The run store's recoverAtBoot hook: a run with a resume state stays unfinished, to be resumed. */
  readonly recover = (record: RunRecord): boolean => {
    if (record.state !== 'waiting_for_approval' || this.options.resumes.get(record.execution_id) === null) return false;
    this.waiting.add(record.execution_id);
    return true;
  };

  /** Wires the parts; a kept run whose approvals were all answered before the stop resumes now. */
  connect(parts: ResumeParts): void {
    this.parts = parts;
    for (const executionId of [...this.waiting]) {
      if (parts.approvals.list({ execution_id: executionId, state: 'pending', limit: 1 }).length > 0) continue;
      const [latest] = (['approved', 'denied', 'expired'] as const).flatMap((state) => parts.approvals.list({ execution_id: executionId, state, limit: 1 }));
      if (latest) this.answered(latest);
    }
  }

  /** An approval answered with no run of this process waiting on it (the Approvals hook). */
  readonly answered = (approval: Approval): void => {
    const executionId = approval.execution_id;
    if (!this.parts || !this.waiting.delete(executionId)) return;
    const state = this.options.resumes.get(executionId);
    if (!state) return;
    const { executor, approvals, resolveBlueprint, adopt } = this.parts;
    const fail = (message: string) => {
      this.options.resumes.drop(executionId);
      adopt(executionId)?.finish({ execution_id: executionId, session_id: state.sessionId, result: null, console: [], error: { kind: 'runtime_error', message } });
      this.options.log.warn('svc_server::runs', 'a run parked before the restart could not be resumed', { execution_id: executionId, reason: message });
    };
    const blueprint = resolveBlueprint(state.blueprint.name);
    if (!blueprint || blueprint.hash !== state.blueprint.hash) return fail(`cannot resume: the run's Blueprint '${state.blueprint.name}' ${blueprint ? 'changed' : 'is no longer registered'} while the run was parked across a restart`);
    const binding = bindBlueprint(blueprint, state.variables, {});
    if (!binding.ok) return fail(`cannot resume: ${binding.error}`);
    // Every approval of the run, answered or still pending: the resumed run's calls meet them again instead of asking anew.
    const answers = (['approved', 'denied', 'expired', 'pending'] as const).flatMap((state) => approvals.list({ execution_id: executionId, state }));
    this.options.log.info('svc_server::runs', 'a run parked before the restart resumes from its journal', { execution_id: executionId, approval_id: approval.approval_id });
    void executor
      .execute({
        entryPoint: state.entryPoint,
        principal: state.owner,
        sessionId: state.sessionId,
        executionId,
        blueprint,
        variables: binding.value.variables,
        cwd: binding.value.fileArea.cwd,
        code: state.code,
        fileArea: binding.value.fileArea,
        harnessSecrets: {},
        throwaway: true,
        replay: { entries: state.journal, live: true },
        resumed: { approvals: answers, timeMs: state.timeMs },
      })
      .catch((error: unknown) => this.options.log.warn('svc_server::runs', 'a resumed run failed in the server', { execution_id: executionId, error: error instanceof Error ? error.message : String(error) }));
  };
}
