// Maps a Blueprint path (map keys and list indexes) to its 1-based line and column in the
// YAML text, for checks that report only a path. Like the server's own locator, it points
// at the value (the key when the value is empty) of the deepest step that exists.
import { isMap, isScalar, isSeq, LineCounter, parseDocument, type Node } from 'yaml';

export function positionOf(text: string, keys: ReadonlyArray<string | number>): { line: number; col: number } | undefined {
  const lineCounter = new LineCounter();
  const document = parseDocument(text, { lineCounter });
  let node = document.contents as Node | null;
  let offset = node?.range?.[0];
  for (const step of keys) {
    if (isMap(node)) {
      const pair = node.items.find((item) => isScalar(item.key) && String(item.key.value) === String(step));
      if (!pair) break;
      const value = pair.value as Node | null;
      const empty = value === null || (isScalar(value) && value.value === null && value.range?.[0] === value.range?.[1]);
      offset = empty ? (pair.key as Node).range?.[0] : value.range?.[0];
      node = value;
    } else if (isSeq(node) && typeof step === 'number' && node.items[step]) {
      node = node.items[step] as Node;
      offset = node.range?.[0];
    } else break;
  }
  return offset === undefined ? undefined : lineCounter.linePos(offset);
}
