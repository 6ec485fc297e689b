// Turns the runner's host calls into calls of the standard-library operations: looks the
// operation up, gives it a HostCall (gate, refuse, charge) for this run, and shapes the
// reply the guest rethrows. One place lists every module: src/stdlib's registry.
import type { HostHandler, HostReply } from '../../sandbox';
import type { HostCall, HostModule, RunContext } from '../stdlib';
import { HOST_FUEL } from '../stdlib';
import type { RunDecisions } from '../policy';

export interface DispatchOptions {
  run: RunContext;
  modules: ReadonlyMap<string, HostModule>;
  decisions: RunDecisions;
}

function errorReply(error: unknown, fuel: number): HostReply {
  if (error instanceof Error) {
    const fields = error as Error & { code?: unknown; caller?: unknown; capability?: unknown; reason?: unknown; source?: unknown };
    return {
      ok: false,
      fuel,
      error: {
        name: error.name,
        message: error.message,
        ...(typeof fields.code === 'string' ? { code: fields.code } : {}),
        ...(typeof fields.caller === 'string' ? { caller: fields.caller } : {}),
        ...(typeof fields.capability === 'string' ? { capability: fields.capability } : {}),
        ...(typeof fields.reason === 'string' ? { reason: fields.reason } : {}),
        ...(typeof fields.source === 'string' ? { source: fields.source } : {}),
      },
    };
  }
  return { ok: false, fuel, error: { name: 'Error', message: String(error) } };
}

export function hostDispatcher(options: DispatchOptions): HostHandler {
  const { run, modules, decisions } = options;
  return async (request) => {
    let fuel = HOST_FUEL.CALL;
    const module = modules.get(request.module);
    const operation = module?.operations[request.op];
    if (!operation) {
      return errorReply(new TypeError(`${request.module} has no function ${request.op}`), fuel);
    }
    const caller = 'main';
    const call: HostCall = {
      ...run,
      caller,
      gate(capability, context, gateOptions) {
        fuel += HOST_FUEL.GATE;
        decisions.gate(caller, capability, context, gateOptions);
      },
      probe(capability, context) {
        fuel += HOST_FUEL.GATE;
        return decisions.probe(caller, capability, context);
      },
      refuse(capability, context, source, error) {
        decisions.record(caller, capability, context, { decision: 'deny', source });
        return error;
      },
      charge(units) {
        fuel += Math.max(1, Math.ceil(units));
      },
    };
    try {
      const value = await operation(call, request.args);
      return { ok: true, value, fuel };
    } catch (error) {
      return errorReply(error, fuel);
    }
  };
}
