// Maps a Blueprint path (map keys and list indexes) to its 1-based line and column in the
// YAML text, for messages about checks that report only a path.
import { LineCounter, parseDocument } from 'yaml';

export function positionOf(text: string, keys: ReadonlyArray<string | number>): { line: number; col: number } | undefined {
  const lineCounter = new LineCounter();
  const document = parseDocument(text, { lineCounter });
  const node = document.getIn(keys, true) as { range?: [number, number, number] } | undefined;
  if (!node?.range) return undefined;
  return lineCounter.linePos(node.range[0]);
}
