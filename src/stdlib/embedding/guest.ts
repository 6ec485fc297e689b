// Guest side of `svc:embedding`: the host returns vectors and their bytes once; the
// Embeddings object hands out copies through vector(i) / bytes(i).
import type { GuestCall, GuestPrimordials } from '../guest-contract';

export default function embeddingGuest(call: GuestCall, P: GuestPrimordials): object {
  const wrap = (r: unknown) => {
    const count = P.own(r, 'count');
    const vectors = P.own(r, 'vectors');
    const bytes = P.own(r, 'bytes');
    const identity = P.own(r, 'identity');
    const dimensions = P.own(r, 'dimensions');
    const tokens = P.own(r, 'inputTokens');
    const check = (fn: string, index: unknown) => {
      if (typeof index !== 'number' || !P.NumberIsInteger(index) || index < 0 || index >= count) throw new P.RangeError_('embedding.' + fn + ': index ' + (typeof index === 'number' ? index : typeof index) + ' is outside 0..' + (count - 1));
    };
    return P.ObjectFreeze({
      model: P.own(r, 'model'), identity, count, dimensions,
      inputTokens: tokens === null ? undefined : tokens,
      vector(index: number) { check('vector', index); return P.arrayCopy(vectors[index]); },
      bytes(index: number) { check('bytes', index); return P.bytesCopy(bytes[index]); },
      toString() { return 'Embeddings(' + count + ' x ' + dimensions + ', ' + identity + ')'; },
    });
  };
  const model = (m: unknown) => P.ObjectFreeze({
    name: P.own(m, 'name'), description: P.own(m, 'description') === null ? undefined : P.own(m, 'description'),
    dimensions: P.own(m, 'dimensions'), maxInputTokens: P.own(m, 'maxInputTokens') === null ? undefined : P.own(m, 'maxInputTokens'),
    maxInputBytes: P.own(m, 'maxInputBytes'), identity: P.own(m, 'identity'),
  });
  return {
    embed: (name: unknown, texts: unknown, purpose: unknown) => wrap(call('embed', name, texts, purpose)),
    models: () => P.ObjectFreeze(P.arrayMap(call('models') as unknown[], model)),
  };
}
