// Host side of `svc:code`, the operation table: line windows, RE2 search, globbing, trees,
// exact edits, insertions, unified diffs and patches. It has no capability of its own:
// every read and write is an fs.* check.
import path from 'node:path';
import { applyPatch as applyUnifiedPatch, parsePatch, type StructuredPatch } from 'diff';
import picomatch from 'picomatch';
import { RE2JS } from 're2js';
import { readNoFollow, type FileArea } from '../../vfs';
import { allowedPath, area, atomicWrite, existingSize, hostWork, requireRoom, requireWritable } from '../fs/area';
import { decodeText } from '../fs/encoding';
import { walkTree, type WalkedEntry } from '../fs/walk';
import { HOST_FUEL } from '../fuel';
import { hostTask } from '../host-tasks';
import { gated, ungated, type HostCall, type HostOperation } from '../types';
import { unifiedDiffHere } from './scan';

/** Milliseconds a search's scan or a diff may compute in its worker thread. */
export const CODE_TASK_BUDGET_MS = 20_000;

const MAX_ENTRIES = 1000;
const MAX_LINE_CHARS = 2000;

function stringArg(value: unknown, fn: string, name: string): string {
  if (typeof value !== 'string') throw new TypeError(`code.${fn}: ${name} must be a string`);
  return value;
}

function intArg(value: unknown, fn: string, name: string, fallback: number, min: number, max: number): number {
  if (value === undefined || value === null) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) throw new RangeError(`code.${fn}: ${name} must be a whole number from ${min} to ${max}`);
  return value;
}

/** Reads a file whose `fs.read` gate was allowed (target from the allowed context). */
function readText(call: HostCall, files: FileArea, fn: string, target: string): { target: string; text: string } {
  const text = hostWork(fn, target, () => {
    const content = readNoFollow(files.resolve(target));
    call.charge(HOST_FUEL.SYSCALL + content.length / 4);
    return decodeText(content);
  });
  return { target, text };
}

/** The write after an edit: a further `fs.write` gate with the diff, then the area's checks. */
async function writeText(call: HostCall, files: FileArea, fn: string, target: string, text: string, diff: string): Promise<void> {
  const content = Buffer.from(text, 'utf8');
  const context = call.gate('fs.write', { path: target, length: content.length, diff });
  const resolved = hostWork(fn, target, () => {
    const found = files.resolve(target);
    requireWritable(call, found.place, 'fs.write', context, target);
    return found;
  });
  const replacing = existingSize(resolved.hostPath);
  await requireRoom(call, files, resolved.place, fn, target, content.length, replacing, context);
  call.charge(HOST_FUEL.SYSCALL + content.length / 4);
  hostWork(fn, target, () => atomicWrite(resolved, content));
  files.recordWrite(resolved.place, content.length - replacing);
}

/** Unified diff with `--- a` / `+++ b` headers and 3 context lines; "" when equal (in this thread: small texts only). */
export function unifiedDiff(a: string, b: string, from = 'a', to = 'b'): string {
  return unifiedDiffHere({ a, b, from, to });
}

/** The same diff computed in a host worker thread, within the code tasks' budget. */
async function diffOffLoop(call: HostCall, fn: string, a: string, b: string, from = 'a', to = 'b'): Promise<string> {
  if (a === b) return '';
  const [patch] = await hostTask('diffs', [{ a, b, from, to }], {
    signal: call.signal,
    budgetMs: CODE_TASK_BUDGET_MS,
    overBudget: `code.${fn}: the diff took longer than ${CODE_TASK_BUDGET_MS / 1000} s; the texts differ in too many places`,
    what: `code.${fn}`,
    tenant: call.principal,
  });
  return patch;
}

/** Depth-first walk of the area under `rootGuest`, hidden components skipped when asked. */
function walk(files: FileArea, rootGuest: string, maxDepth: number, skipHidden: boolean): WalkedEntry[] {
  return walkTree(files.resolve(rootGuest).hostPath, rootGuest, { maxDepth, skipHidden, stopAfter: 20_000 });
}

function gitignoreMatcher(files: FileArea, rootGuest: string): (relative: string) => boolean {
  try {
    const text = readNoFollow(files.resolve(rootGuest === '/' ? '/.gitignore' : `${rootGuest}/.gitignore`)).toString('utf8');
    const patterns = text
      .split(/\r?\n/)
      .map((l) => l.trim())
      .filter((l) => l !== '' && !l.startsWith('#') && !l.startsWith('!'))
      .flatMap((l) => {
        const bare = l.replace(/^\//, '').replace(/\/$/, '');
        return l.includes('/') && !l.endsWith('/') ? [bare, `${bare}/**`] : [`**/${bare}`, `**/${bare}/**`, bare, `${bare}/**`];
      });
    return patterns.length > 0 ? picomatch(patterns, { dot: true }) : () => false;
  } catch {
    return () => false;
  }
}

function mutation(changed: boolean, diff: string, diagnostics: Array<{ hunk: number; line: number; message: string }> = [], success = true) {
  return { success, changed, diff, diagnostics };
}

const lineOf = (text: string, index: number) => text.slice(0, index).split('\n').length;

export const codeOperations: Record<string, HostOperation> = {
  read: gated({
    parse: (args, run) => ({
      files: area(run, 'read'),
      raw: stringArg(args[0], 'read', 'path'),
      offset: intArg(args[1], 'read', 'offset', 1, 1, Number.MAX_SAFE_INTEGER),
      limit: intArg(args[2], 'read', 'limit', 200, 1, 2000),
    }),
    gate: ({ raw }) => ({ capability: 'fs.read', context: { path: raw } }),
    run: (call, { files, offset, limit }, allowed) => {
      const { target, text } = readText(call, files, 'read', allowedPath(allowed));
      const all = text === '' ? [] : text.replace(/\r?\n$/, '').split(/\r?\n/);
      const window = all.slice(offset - 1, offset - 1 + limit).map((line, i) => ({ line: offset + i, text: line.length > MAX_LINE_CHARS ? line.slice(0, MAX_LINE_CHARS) : line }));
      return { path: target, lines: window, truncated: offset - 1 + limit < all.length };
    },
  }),

  search: gated({
    parse: (args, run) => {
      const files = area(run, 'search');
      const pattern = stringArg(args[0], 'search', 'pattern');
      const options = (args[1] ?? {}) as { path?: string; include?: string[]; exclude?: string[]; caseSensitive?: boolean; context?: number; mode?: string; limit?: number };
      if (typeof options !== 'object') throw new TypeError('code.search: options must be an object');
      const mode = options.mode ?? 'matches';
      if (!['matches', 'files', 'counts'].includes(mode)) throw new TypeError('code.search: mode is matches, files or counts');
      const limit = intArg(options.limit, 'search', 'limit', 1000, 1, 1000);
      const contextLines = intArg(options.context, 'search', 'context', 0, 0, 100);
      // Compiled here only to refuse a bad pattern with its reason; the worker compiles its own.
      try {
        RE2JS.compile(pattern, options.caseSensitive === false ? RE2JS.CASE_INSENSITIVE : 0);
      } catch (error) {
        throw new SyntaxError(`code.search: invalid pattern: ${(error as Error).message}`);
      }
      const rootRaw = options.path ?? '/';
      if (typeof rootRaw !== 'string' || rootRaw === '') throw new TypeError('code.search: path must be a non-empty string');
      return { files, options, mode, limit, contextLines, pattern, rootRaw };
    },
    gate: ({ rootRaw }) => ({ capability: 'fs.list', context: { path: rootRaw, recursive: true } }),
    run: async (call, { files, options, mode, limit, contextLines, pattern }, allowed) => {
      call.charge(HOST_FUEL.REGEX_COMPILE);
      const root = allowedPath(allowed);
      const include = options.include?.length ? picomatch(options.include, { dot: false }) : null;
      const exclude = options.exclude?.length ? picomatch(options.exclude, { dot: true }) : null;
      const ignored = gitignoreMatcher(files, root);
      const within = hostWork('search', root, () => files.resolve(root).root);
      const chosen: Array<{ guestPath: string; hostPath: string }> = [];
      for (const entry of walk(files, root, 64, true)) {
        if (entry.kind !== 'file') continue;
        const relative = path.posix.relative(root, entry.guestPath);
        if (ignored(relative) || (include && !include(relative) && !include(path.posix.basename(relative))) || (exclude && (exclude(relative) || exclude(path.posix.basename(relative))))) continue;
        if (!call.probe('fs.read', { path: entry.guestPath, recursive: true })) continue;
        chosen.push({ guestPath: entry.guestPath, hostPath: entry.hostPath });
      }
      // Reading and scanning grow with the files: a worker thread, within a budget.
      const { scanned, ...result } = await hostTask(
        'code.search',
        { pattern, caseInsensitive: options.caseSensitive === false, files: chosen, root: within, mode: mode as 'matches' | 'files' | 'counts', limit, contextLines },
        {
          signal: call.signal,
          budgetMs: CODE_TASK_BUDGET_MS,
          overBudget: `code.search: the search took longer than ${CODE_TASK_BUDGET_MS / 1000} s; narrow the path or the include patterns, or simplify the pattern (bounded repeats such as {1,500} are costly)`,
          what: 'code.search',
          tenant: call.principal,
        },
      );
      call.charge(HOST_FUEL.REGEX_PER_BYTE * scanned);
      return result;
    },
  }),

  glob: gated({
    parse: (args, run) => {
      const files = area(run, 'glob');
      const pattern = stringArg(args[0], 'glob', 'pattern');
      const absolute = pattern.startsWith('/');
      return { files, absolute, matcher: picomatch(absolute ? pattern.slice(1) : pattern, { dot: false }), root: absolute ? '/' : files.cwd };
    },
    gate: ({ root }) => ({ capability: 'fs.list', context: { path: root, recursive: true } }),
    run: (call, { files, matcher }, allowed) => {
      const root = allowedPath(allowed);
      const entries = walk(files, root, 64, true)
        .filter((e) => matcher(path.posix.relative(root, e.guestPath)))
        .sort((x, y) => y.modifiedAt - x.modifiedAt);
      call.charge(HOST_FUEL.ELEM * entries.length);
      return { entries: entries.slice(0, MAX_ENTRIES).map((e) => ({ path: e.guestPath, kind: e.kind, depth: e.depth, modifiedAt: e.modifiedAt })), truncated: entries.length > MAX_ENTRIES };
    },
  }),

  tree: gated({
    parse: (args, run) => {
      const files = area(run, 'tree');
      const rootRaw = args[0] === undefined || args[0] === null ? files.cwd : stringArg(args[0], 'tree', 'path');
      return { files, rootRaw, depth: intArg(args[1], 'tree', 'depth', 3, 1, 32) };
    },
    gate: ({ rootRaw, depth }) => ({ capability: 'fs.list', context: { path: rootRaw, recursive: depth > 1 } }),
    run: (call, { files, depth }, allowed) => {
      const root = allowedPath(allowed);
      const entries = hostWork('tree', root, () => walk(files, root, depth, false));
      call.charge(HOST_FUEL.ELEM * entries.length);
      return { entries: entries.slice(0, MAX_ENTRIES).map((e) => ({ path: e.guestPath, kind: e.kind, depth: e.depth, modifiedAt: e.modifiedAt })), truncated: entries.length > MAX_ENTRIES };
    },
  }),

  edit: gated({
    parse: (args, run) => {
      const files = area(run, 'edit');
      const oldString = stringArg(args[1], 'edit', 'oldString');
      const newString = stringArg(args[2], 'edit', 'newString');
      if (oldString === '') throw new TypeError('code.edit: oldString must not be empty');
      return { files, raw: stringArg(args[0], 'edit', 'path'), oldString, newString, replaceAll: args[3] === true, nearLine: typeof args[4] === 'number' ? args[4] : 0 };
    },
    gate: ({ raw }) => ({ capability: 'fs.read', context: { path: raw } }),
    run: async (call, { files, oldString, newString, replaceAll, nearLine }, allowed) => {
      const { target, text } = readText(call, files, 'edit', allowedPath(allowed));
      let needle = oldString;
      let replacement = newString;
      if (!text.includes(needle) && text.includes('\r\n')) {
        needle = oldString.replace(/\r?\n/g, '\r\n');
        replacement = newString.replace(/\r?\n/g, '\r\n');
      }
      const positions: number[] = [];
      for (let at = text.indexOf(needle); at !== -1; at = text.indexOf(needle, at + needle.length)) positions.push(at);
      if (positions.length === 0) return mutation(false, '', [{ hunk: 0, line: 0, message: 'oldString was not found in the file' }], false);
      let updated: string;
      if (replaceAll) updated = text.split(needle).join(replacement);
      else if (positions.length === 1 || nearLine > 0) {
        const chosen = positions.reduce((best, at) => (Math.abs(lineOf(text, at) - nearLine) < Math.abs(lineOf(text, best) - nearLine) ? at : best));
        const at = positions.length === 1 ? positions[0] : chosen;
        updated = text.slice(0, at) + replacement + text.slice(at + needle.length);
      } else {
        return mutation(false, '', [{ hunk: 0, line: 0, message: `oldString occurs ${positions.length} times (lines ${positions.map((p) => lineOf(text, p)).join(', ')}); pass replaceAll or nearLine` }], false);
      }
      if (updated === text) return mutation(false, '');
      const diff = await diffOffLoop(call, 'edit', text, updated, target, target);
      await writeText(call, files, 'edit', target, updated, diff);
      return mutation(true, diff);
    },
  }),

  insertAt: gated({
    parse: (args, run) => ({ files: area(run, 'insertAt'), raw: stringArg(args[0], 'insertAt', 'path'), line: args[1], insert: stringArg(args[2], 'insertAt', 'text') }),
    gate: ({ raw }) => ({ capability: 'fs.read', context: { path: raw } }),
    run: async (call, { files, line, insert: given }, allowed) => {
      const { target, text } = readText(call, files, 'insertAt', allowedPath(allowed));
      const insert = given.endsWith('\n') ? given : `${given}\n`;
      const lines = text === '' ? [] : text.split('\n');
      const trailing = text.endsWith('\n');
      const count = trailing ? lines.length - 1 : lines.length;
      if (typeof line !== 'number' || !Number.isInteger(line) || line < 1 || line > count + 1) {
        return mutation(false, '', [{ hunk: 0, line: typeof line === 'number' ? line : 0, message: `line must be from 1 to ${count + 1}` }], false);
      }
      const updated =
        line === count + 1
          ? `${text}${text !== '' && !trailing ? '\n' : ''}${insert}`
          : `${lines.slice(0, line - 1).join('\n')}${line > 1 ? '\n' : ''}${insert}${lines.slice(line - 1).join('\n')}`;
      const diff = await diffOffLoop(call, 'insertAt', text, updated, target, target);
      await writeText(call, files, 'insertAt', target, updated, diff);
      return mutation(true, diff);
    },
  }),

  diffText: ungated<{ a: string; b: string }>('compares two strings the program passes; no file or network is touched', {
    parse: (args) => ({ a: stringArg(args[0], 'diffText', 'a'), b: stringArg(args[1], 'diffText', 'b') }),
    run: (call, { a, b }) => {
      call.charge(HOST_FUEL.PARSE_PER_BYTE * (a.length + b.length));
      return diffOffLoop(call, 'diffText', a, b);
    },
  }),

  diffFiles: gated({
    parse: (args, run) => ({ files: area(run, 'diffFiles'), a: stringArg(args[0], 'diffFiles', 'a'), b: stringArg(args[1], 'diffFiles', 'b') }),
    gate: ({ a, b }) => [
      { capability: 'fs.read', context: { path: a } },
      { capability: 'fs.read', context: { path: b } },
    ],
    run: (call, { files }, allowed) => {
      const a = readText(call, files, 'diffFiles', allowedPath(allowed, 'path', 0));
      const b = readText(call, files, 'diffFiles', allowedPath(allowed, 'path', 1));
      return diffOffLoop(call, 'diffFiles', a.text, b.text, a.target, b.target);
    },
  }),

  applyPatch: gated({
    parse: (args, run) => ({ files: area(run, 'applyPatch'), raw: stringArg(args[0], 'applyPatch', 'path'), patchText: stringArg(args[1], 'applyPatch', 'patch') }),
    gate: ({ raw }) => ({ capability: 'fs.read', context: { path: raw } }),
    run: async (call, { files, patchText }, allowed) => {
      const { target, text } = readText(call, files, 'applyPatch', allowedPath(allowed));
      let patches: StructuredPatch[];
      try {
        patches = parsePatch(patchText.includes('@@') && !patchText.includes('--- ') ? `--- a\n+++ b\n${patchText}` : patchText);
      } catch (error) {
        return mutation(false, '', [{ hunk: 0, line: 0, message: `the patch cannot be parsed: ${(error as Error).message}` }], false);
      }
      if (patches.length !== 1) return mutation(false, '', [{ hunk: 0, line: 0, message: 'the patch must hold hunks for exactly one file' }], false);
      const patch = patches[0];
      const updated = applyUnifiedPatch(text, patch);
      if (updated === false) {
        const diagnostics = patch.hunks
          .map((hunk, i) => ({ hunk, i }))
          .filter(({ hunk }) => applyUnifiedPatch(text, { ...patch, hunks: [hunk] }) === false)
          .map(({ hunk, i }) => ({ hunk: i + 1, line: hunk.oldStart, message: 'the hunk does not match the file; nothing was changed' }));
        return mutation(false, '', diagnostics, false);
      }
      if (updated === text) return mutation(false, '');
      const diff = await diffOffLoop(call, 'applyPatch', text, updated, target, target);
      await writeText(call, files, 'applyPatch', target, updated, diff);
      return mutation(true, diff);
    },
  }),
};
