// Turns a run's host calls into standard-library operations: looks the operation up,
// validates its arguments, asks the policy for every gate the operation declares (before
// it runs: an operation cannot skip its gates), then runs it with the allowed, normalised
// contexts and shapes the reply the guest rethrows. It remembers the refusals it issued,
// so a run report can only claim a denial the host really made.
import { hostErrorRow, type Attribution, type DenialFacts, type DenialSource, type HostErrorShape, type HostHandler, type HostReply } from '../../sandbox';
import { PermissionDeniedError, type HumanAsker, type RunDecisions } from '../policy';
import type { ExecuteError } from './result';
import { HOST_FUEL, RunResources, type AllowedGate, type GateRequest, type HostCall, type HostModule, type HostOperation, type RunContext } from '../stdlib';

/** A refusal the host issued to this run (what a reported permission_denied must match). */
export type IssuedDenial = DenialFacts<DenialSource>;

/**
 * A report of `permission_denied` counts only when the host issued that refusal in this
 * run (same caller, capability and source); anything else the guest claims is a runtime error.
 */
export function confirmDenial(error: ExecuteError, issued: readonly IssuedDenial[]): ExecuteError {
  if (error.kind !== 'permission_denied') return error;
  const matches = issued.some((d) => d.caller === error.caller && d.capability === error.capability && d.source === error.source);
  if (matches) return error;
  const { caller: _caller, capability: _capability, source: _source, ...rest } = error;
  return { ...rest, kind: 'runtime_error' };
}

export interface DispatchOptions {
  run: Omit<RunContext, 'resources'>;
  modules: ReadonlyMap<string, HostModule>;
  decisions: RunDecisions;
  /** The run's principals besides `main`: the Packages it loaded. A caller outside them is unidentified. */
  packages?: ReadonlySet<string>;
  /**
   * Asks a person about the run's `ask-human` decisions (src/approvals), given the waiting
   * call's cancellation. Without it (the MCP file tools outside a run) they count as denials.
   */
  askHuman?: (signal: AbortSignal) => HumanAsker;
}

/** How a call waits for a person: its cancellation, and the hook that stops the run's clock meanwhile. */
interface Waiting {
  signal?: AbortSignal;
  waiting?: <T>(work: Promise<T>) => Promise<T>;
}

/** Why program code may not make a check on a Package's behalf. */
const PROGRAM_SPEAKING_FOR_PACKAGE = 'program code running inside a package call (a callback, a toJSON or a getter the package invoked) cannot make that package\'s checks';

/** The caller an operation is judged under, from the guest's attribution (none: `main`, a run without Packages). */
interface Judged {
  caller: string;
  /** Set when the call must be refused as an invariant whatever the rules say. */
  invariant?: string;
}

/** The reply for a failed operation: its name, message and code, and the fields its row of HOST_ERRORS says it carries. */
function errorReply(error: unknown, fuel: number): HostReply {
  if (!(error instanceof Error)) return { ok: false, fuel, error: { name: 'Error', message: String(error) } };
  const fields = error as Error & Partial<Record<keyof HostErrorShape, unknown>>;
  const shape: HostErrorShape = { name: error.name, message: error.message };
  if (typeof fields.code === 'string') shape.code = fields.code;
  for (const field of hostErrorRow(error.name)?.carries ?? []) {
    const value = fields[field];
    if (typeof value === 'string') shape[field] = value;
  }
  return { ok: false, fuel, error: shape };
}

/**
 * Text a permission check may carry in all (paths, hosts, names, a Package's check
 * context). A larger context is refused before normalisation, rule matching or audit
 * touch it, so a huge argument costs the server one bounded walk, not seconds.
 */
export const MAX_CHECK_CONTEXT_CHARS = 64 * 1024;
const MAX_CONTEXT_DEPTH = 32;

/** Characters of text (keys included) in a context, counted until `budget` is passed; the top-level field that passed it. */
function oversizeField(context: Record<string, unknown>): { field: string; chars: number } | null {
  let total = 0;
  let nodes = 0;
  const walk = (value: unknown, depth: number): void => {
    if (total > MAX_CHECK_CONTEXT_CHARS) return;
    if (++nodes > MAX_CHECK_CONTEXT_CHARS || depth > MAX_CONTEXT_DEPTH) {
      total = MAX_CHECK_CONTEXT_CHARS + 1;
      return;
    }
    if (typeof value === 'string') total += value.length;
    else if (value instanceof Uint8Array) total += value.byteLength;
    else if (value !== null && typeof value === 'object') {
      for (const key of Object.keys(value)) {
        total += key.length;
        walk((value as Record<string, unknown>)[key], depth + 1);
        if (total > MAX_CHECK_CONTEXT_CHARS) return;
      }
    }
  };
  for (const field of Object.keys(context)) {
    const before = total;
    total += field.length;
    walk(context[field], 1);
    if (total > MAX_CHECK_CONTEXT_CHARS) return { field, chars: typeof context[field] === 'string' ? (context[field] as string).length : total - before };
  }
  return null;
}

/** Throws the RangeError the program sees when a check's context is over the bound. */
function requireBoundedContext(capability: string, context: Record<string, unknown>): void {
  const over = oversizeField(context);
  if (!over) return;
  const size = typeof context[over.field] === 'string' ? `is ${over.chars} characters long` : `holds too much text (or nests deeper than ${MAX_CONTEXT_DEPTH} levels)`;
  throw new RangeError(`${capability}: \`${over.field}\` ${size}; a permission check takes at most ${MAX_CHECK_CONTEXT_CHARS} characters in all (paths, hosts, names and other checked values), so nothing was run`);
}

function gateList(requests: GateRequest | readonly GateRequest[]): readonly GateRequest[] {
  return Array.isArray(requests) ? requests : [requests as GateRequest];
}

export class HostDispatcher {
  /** Refusals issued in this run, in order. */
  readonly denials: IssuedDenial[] = [];
  private readonly resources = new RunResources();

  constructor(private readonly options: DispatchOptions) {}

  /** The runner pool's host handler: every failure becomes an error reply, never a throw. */
  // Not an async function: while the operation waits on a far end (a fan-out keeps thousands
  // of calls waiting) this keeps one reaction on its promise, not a suspended frame.
  readonly handle: HostHandler = (request) => {
    const fuel = { spent: HOST_FUEL.CALL };
    return this.invoke(request.module, request.op, Array.isArray(request.args) ? request.args : [], fuel, request.attribution, request.signal, request.waiting, request.sendBytes, request.sendBytesPast).then(
      (value): HostReply => {
        const operation = this.options.modules.get(request.module)?.operations[request.op];
        // A secret's value reaches the Package that asked, never the run's journal.
        if (operation && 'answersSecret' in operation && operation.answersSecret) return { ok: true, value, fuel: fuel.spent, withheld: true };
        return { ok: true, value, fuel: fuel.spent };
      },
      (error: unknown) => errorReply(error, fuel.spent),
    );
  };

  /** Validates, gates and runs one operation (for `main` without attribution: the MCP file tools). */
  async invoke(moduleName: string, op: string, args: unknown[], fuel = { spent: 0 }, attribution?: Attribution, signal?: AbortSignal, waiting?: Waiting['waiting'], sendBytes?: HostCall['streamBytes'], sendBytesPast?: number): Promise<unknown> {
    const module = this.options.modules.get(moduleName);
    const operation: HostOperation | undefined = module && Object.prototype.hasOwnProperty.call(module.operations, op) ? module.operations[op] : undefined;
    if (!operation) throw new TypeError(`${moduleName} has no function ${op}`);
    const judged = this.judged(operation, attribution);
    const call = this.hostCall(judged, fuel, signal, sendBytes, sendBytesPast);
    const params = operation.parse ? await operation.parse(args, call) : args;
    if (operation.gate === 'none') return operation.run(call, params);
    const requests = gateList(operation.gate(params, call));
    if (requests.length === 0) throw new Error(`${moduleName}.${op}: the operation derived no capability check, so it was not run`);
    const allowed: AllowedGate[] = [];
    // The operation's own gates may wait for a person (`ask-human`); checks made while it runs cannot.
    for (const request of requests) {
      const context = judged.invariant === undefined ? await this.gateWaiting(call, request, { signal: call.signal, waiting }, fuel) : call.gate(request.capability, request.context, { skipMainInvariant: request.check === true });
      allowed.push({ capability: request.capability, context });
    }
    return operation.run(call, params, allowed);
  }

  /** One of an operation's own gates: as `call.gate`, except that an `ask-human` decision asks a person and waits. */
  private async gateWaiting(call: HostCall, request: GateRequest, how: Waiting, fuel: { spent: number }): Promise<Record<string, unknown>> {
    const askHuman = this.options.askHuman;
    if (!askHuman || !how.signal) return call.gate(request.capability, request.context, { skipMainInvariant: request.check === true });
    fuel.spent += HOST_FUEL.GATE;
    requireBoundedContext(request.capability, request.context);
    const asker = askHuman(how.signal);
    const ask: HumanAsker = how.waiting ? (question) => how.waiting!(asker(question)) : asker;
    try {
      return (await this.options.decisions.gateAsking(call.caller, request.capability, request.context, { skipMainInvariant: request.check === true, ask })).context;
    } catch (error) {
      if (error instanceof PermissionDeniedError) this.denials.push({ caller: error.caller, capability: error.capability, source: error.source });
      throw error;
    }
  }

  /** The run ended: open writers and other handles are dropped. */
  end(): void {
    this.resources.clear();
  }

  /**
   * Standard-library operations are judged under the code that made the call; a check
   * (`attribution: 'consumer'`) under the consumer of the Package making it. A name the run
   * did not load is unidentified (''), which the policy refuses as an invariant.
   */
  private judged(operation: HostOperation, attribution: Attribution | undefined): Judged {
    if (!attribution) return { caller: 'main' };
    const known = (name: string | null) => (name !== null && (name === 'main' || this.options.packages?.has(name) === true) ? name : '');
    if (operation.gate !== 'none' && operation.attribution === 'consumer') {
      if (attribution.consumer === null && attribution.caller === 'main') return { caller: 'main', invariant: PROGRAM_SPEAKING_FOR_PACKAGE };
      return { caller: known(attribution.consumer) };
    }
    return { caller: known(attribution.caller) };
  }

  private hostCall(judged: Judged, fuel: { spent: number }, signal?: AbortSignal, streamBytes?: HostCall['streamBytes'], streamBytesPast?: number): HostCall {
    // A call from the runner pool has its own signal, which the pool aborts when the program
    // gives up on the call and when the run ends (sandbox/pool: finish): no composite with
    // the run's signal (AbortSignal.any built a signal, a weak reference and a listener per call).
    return new CallHandle(this.options.run, this.resources, judged, fuel, this.options.decisions, this.denials, signal ?? this.options.run.signal, streamBytes, streamBytesPast);
  }
}

/**
 * One host call as its operation sees it. A class, not an object literal with closures: a
 * fan-out keeps thousands of calls waiting, and each literal (the run's fields spread in,
 * five closures and their context) was an object with a map of its own.
 */
class CallHandle implements HostCall {
  readonly executionId: string;
  readonly sessionId: string;
  readonly principal: string;
  readonly blueprintName: string;
  readonly variables: Readonly<Record<string, string>>;
  readonly services: RunContext['services'];
  readonly caller: string;
  readonly streamBytes?: HostCall['streamBytes'];
  readonly streamBytesPast?: number;

  constructor(
    run: DispatchOptions['run'],
    readonly resources: RunResources,
    private readonly judged: Judged,
    private readonly fuel: { spent: number },
    private readonly decisions: RunDecisions,
    private readonly denials: IssuedDenial[],
    readonly signal: AbortSignal,
    streamBytes: HostCall['streamBytes'],
    streamBytesPast: number | undefined,
  ) {
    this.executionId = run.executionId;
    this.sessionId = run.sessionId;
    this.principal = run.principal;
    this.blueprintName = run.blueprintName;
    this.variables = run.variables;
    this.services = run.services;
    this.caller = judged.caller;
    if (streamBytes) this.streamBytes = streamBytes;
    if (streamBytesPast !== undefined) this.streamBytesPast = streamBytesPast;
  }

  gate(capability: string, context: Record<string, unknown>, gateOptions?: { skipMainInvariant?: boolean }): Record<string, unknown> {
    this.fuel.spent += HOST_FUEL.GATE;
    requireBoundedContext(capability, context);
    try {
      if (this.judged.invariant !== undefined) this.decisions.refuseInvariant(this.caller, capability, context, this.judged.invariant);
      return this.decisions.gate(this.caller, capability, context, gateOptions).context;
    } catch (error) {
      this.denied(error);
      throw error;
    }
  }

  probe(capability: string, context: Record<string, unknown>): boolean {
    this.fuel.spent += HOST_FUEL.GATE;
    requireBoundedContext(capability, context);
    try {
      return this.decisions.probe(this.caller, capability, context);
    } catch (error) {
      this.denied(error);
      throw error;
    }
  }

  refuse(capability: string, context: Record<string, unknown>, source: Parameters<HostCall['refuse']>[2], error: Error): Error {
    this.decisions.record(this.caller, capability, context, { decision: 'deny', source });
    this.denied(error);
    return error;
  }

  charge(units: number): void {
    this.fuel.spent += Number.isFinite(units) ? Math.max(1, Math.ceil(units)) : 1;
  }

  private denied(error: unknown): void {
    if (error instanceof PermissionDeniedError) this.denials.push({ caller: error.caller, capability: error.capability, source: error.source });
  }
}
