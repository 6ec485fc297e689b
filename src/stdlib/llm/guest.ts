// Guest side of `svc:llm`: untyped results (Completion envelopes) are frozen; a structured
// result is the program's own parsed value.
import type { GuestCall, GuestPrimordials } from '../guest-contract';

export default function llmGuest(call: GuestCall, P: GuestPrimordials): object {
  const untyped = (schema: unknown) => schema === undefined || schema === null;
  const freeze = <T>(value: T): T => P.ObjectFreeze(value);
  return {
    call: (model: unknown, prompt: unknown, schema: unknown) => { const r = call('call', model, prompt, schema); return untyped(schema) ? freeze(r) : r; },
    batch: (model: unknown, prompts: unknown, schema: unknown) => { const r = call('batch', model, prompts, schema); return untyped(schema) ? freeze(P.arrayMap(r as unknown[], freeze)) : r; },
    models: () => freeze(P.arrayMap(call('models') as unknown[], freeze)),
  };
}
