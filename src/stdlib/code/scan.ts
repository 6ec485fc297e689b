// The CPU part of `code.search` and of every unified diff, as plain functions of plain
// data: they run in a host worker thread (src/stdlib/host-tasks.ts), never on the server's
// event loop. re2js is linear in the text, but a large automaton (`\w{1,500}\d`) still
// scans a few MB for minutes, so the caller gives the task a time budget.
import { createTwoFilesPatch } from 'diff';
import { RE2JS } from 're2js';
import { readNoFollow } from '../../vfs';
import { decodeText } from '../fs/encoding';

const MAX_LINE_CHARS = 2000;

export interface SearchScanInput {
  pattern: string;
  caseInsensitive: boolean;
  /** Files the walk found and the policy let the program read, in walk order. */
  files: Array<{ guestPath: string; hostPath: string }>;
  /** Real path of the area's root: reads never leave it. */
  root: string;
  mode: 'matches' | 'files' | 'counts';
  limit: number;
  contextLines: number;
}

export interface SearchScanResult {
  matches: unknown[];
  files: string[];
  counts: Array<{ path: string; count: number }>;
  truncated: boolean;
  /** Characters scanned, charged to the run as host fuel. */
  scanned: number;
}

export function scanFiles(input: SearchScanInput): SearchScanResult {
  const regex = RE2JS.compile(input.pattern, input.caseInsensitive ? RE2JS.CASE_INSENSITIVE : 0);
  const { mode, limit, contextLines } = input;
  const result: SearchScanResult = { matches: [], files: [], counts: [], truncated: false, scanned: 0 };
  let total = 0;
  for (const entry of input.files) {
    let text: string;
    try {
      text = decodeText(readNoFollow({ hostPath: entry.hostPath, root: input.root }));
    } catch {
      continue;
    }
    result.scanned += text.length;
    const lines = text.split(/\r?\n/);
    let count = 0;
    lines.forEach((line, index) => {
      if (!regex.matcher(line).find()) return;
      count++;
      if (mode === 'matches' && total < limit) {
        result.matches.push({
          path: entry.guestPath,
          line: index + 1,
          text: line.slice(0, MAX_LINE_CHARS),
          before: lines.slice(Math.max(0, index - contextLines), index).map((t, i) => ({ line: index - (Math.min(index, contextLines) - i) + 1, text: t })),
          after: lines.slice(index + 1, index + 1 + contextLines).map((t, i) => ({ line: index + 2 + i, text: t })),
        });
      }
      total++;
    });
    if (count > 0) {
      if (result.files.length < limit) result.files.push(entry.guestPath);
      if (result.counts.length < limit) result.counts.push({ path: entry.guestPath, count });
    }
  }
  result.truncated = total > limit;
  return result;
}

export interface DiffInput {
  a: string;
  b: string;
  from?: string;
  to?: string;
}

/** Unified diff with `--- a` / `+++ b` headers and 3 context lines; "" when equal. */
export function unifiedDiffHere({ a, b, from = 'a', to = 'b' }: DiffInput): string {
  if (a === b) return '';
  const patch = createTwoFilesPatch(from, to, a, b, undefined, undefined, { context: 3 });
  return patch
    .split('\n')
    .filter((line) => !line.startsWith('Index:') && !/^=+$/.test(line))
    .map((line) => (line.startsWith('--- ') ? `--- ${from}` : line.startsWith('+++ ') ? `+++ ${to}` : line))
    .join('\n');
}

/** Several diffs in one task (git diff: one per changed path). */
export function unifiedDiffsHere(inputs: DiffInput[]): string[] {
  return inputs.map(unifiedDiffHere);
}
