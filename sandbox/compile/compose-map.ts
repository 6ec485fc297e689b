// The source map of an instrumented script: the instrumentation's edits of esbuild's output
// (a MagicString) composed with esbuild's own map, and through it with any map beyond (a
// Package's lib.js.map), so a stack frame's position leads back to the submitted source.
import remapping, { type SourceMap } from '@jridgewell/remapping';
import { decodedMappings, TraceMap } from '@jridgewell/trace-mapping';
import type MagicString from 'magic-string';

/** The name esbuild's output goes by inside the composition (it appears in no composed map). */
const ESBUILD_OUTPUT = 'esbuild-output.js';

/**
 * `s` holds the edits of esbuild's output `code`, `map` is esbuild's map of it; `beyond`
 * gives a map for a source of esbuild's map that has one. The edits' map gets a segment
 * where esbuild's map starts one and where an edit splits the text, not at every character
 * (`hires: true`): a column between two of esbuild's segments traces to the first of them
 * either way, so the composed map is the same, for about a third of the composing.
 */
export function composeMap(s: MagicString, code: string, map: string, file: string, beyond: (source: string) => string | null = () => null): SourceMap {
  const esbuildMap = new TraceMap(map);
  let lineStart = 0;
  for (const segments of decodedMappings(esbuildMap)) {
    for (const segment of segments) s.addSourcemapLocation(lineStart + segment[0]);
    const newline = code.indexOf('\n', lineStart);
    if (newline === -1) break;
    lineStart = newline + 1;
  }
  // Handed over decoded: encoding it for remapping to decode again cost ~40 % of the composition.
  const edits = s.generateDecodedMap({ source: ESBUILD_OUTPUT, file, includeContent: false });
  return remapping({ version: 3, ...edits }, (source) => (source === ESBUILD_OUTPUT ? esbuildMap : beyond(source)));
}
