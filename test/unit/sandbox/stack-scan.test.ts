// The stack scanner reads guest text: it must agree with V8's frame format, never throw,
// and stay linear on any input (the regular expression it replaced was quadratic on one
// long line: `"at " + "a (".repeat(100000)` held the server for 17 s).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { compileProgram } from '../../../sandbox';
import { mappable, mapFrames, parseFrame, renderTrace, MAX_STACK_CHARS } from '../../../sandbox/compile/stack';
import { excerpt } from '../../../sandbox/compile/diagnostics';

/** The expression the scanner replaced (kept here as the reference for ordinary lines). */
const OLD_FRAME = /^\s*at (?:(.*?) \()?(.+?):(\d+):(\d+)\)?$/;

const name = fc.stringMatching(/^[A-Za-z_$.<> ]{0,20}$/).filter((n) => !n.includes(' (') && !n.startsWith(' ') && n.trim() === n);
const file = fc.constantFrom('svc-program.js', '@acme/billing/lib.js', 'svc-prelude.js', 'node:internal/x.js');
const position = fc.integer({ min: 1, max: 999_999 });

test('a formatted frame reads back as itself', () => {
  fc.assert(
    fc.property(name, file, position, position, fc.constantFrom('', '    ', '\t'), (fn, f, line, column, indent) => {
      const text = fn ? `${indent}at ${fn} (${f}:${line}:${column})` : `${indent}at ${f}:${line}:${column}`;
      assert.deepEqual(parseFrame(text), { name: fn || null, file: f, line, column });
    }),
  );
});

test('on lines of frame-like characters the scanner agrees with the old expression wherever that one was unambiguous', () => {
  const alphabet = fc.constantFrom('a', 't', ' ', '(', ')', ':', '1', '2', 'x.js', 'at ', ' (', '\t');
  fc.assert(
    fc.property(fc.array(alphabet, { maxLength: 30 }).map((parts) => parts.join('')), (line) => {
      const old = OLD_FRAME.exec(line);
      const now = parseFrame(line);
      // The old expression took the shortest name; names holding ` (` are read differently on
      // purpose, and so is a name with no closing parenthesis (`at  (a:2:2`): V8 closes every
      // named frame, so the scanner reads a name only before a `)` at the end.
      const unclosedName = old?.[1] !== undefined && !line.endsWith(')');
      if (old && !unclosedName && !(old[1] ?? '').includes(' (') && !old[2].includes(' (') && !/^\s/.test(line.replace(/^[ \t]*/, '')) && !/[^ \t\S]/.test(line)) {
        assert.ok(now, `old matched ${JSON.stringify(line)}`);
        assert.deepEqual([now.file, now.line, now.column], [old[2], Number(old[3]), Number(old[4])], JSON.stringify(line));
      }
      if (now) {
        assert.ok(Number.isSafeInteger(now.line) && Number.isSafeInteger(now.column));
        assert.ok(now.file.length > 0);
      }
    }),
    { numRuns: 5000, examples: [['at  (a:2:2'], ['at x (a:1:1'], ['at  (a:1:1)']] },
  );
});

test('arbitrary text never throws and maps to no frame of a script it does not name', async () => {
  const compiled = await compileProgram({ source: 'export function main() {\n  throw new Error("x");\n}\n', availableModules: [] });
  assert.ok(compiled.ok);
  const program = mappable(compiled.script.filename, compiled.script.sourceMap);
  fc.assert(
    fc.property(fc.string({ maxLength: 300 }), (text) => {
      for (const frame of mapFrames(text, program)) assert.equal(frame.file, 'program.ts');
      assert.equal(typeof renderTrace(text, program, compiled.script.sources['program.ts']), 'string');
    }),
  );
});

test('megabyte lines shaped against backtracking are read in one pass each (this would take minutes if quadratic)', () => {
  const hostile = [
    `at ${'a ('.repeat(350_000)}`,
    `at ${'a:1:'.repeat(250_000)}`,
    `    at ${' ('.repeat(500_000)}svc-program.js:1:1)`,
    `at ${'1:'.repeat(500_000)}`,
    `at ${'('.repeat(1_000_000)}`,
  ];
  for (const line of hostile) {
    // Cut to MAX_STACK_CHARS by mapFrames; parseFrame itself is linear on the whole line.
    parseFrame(line);
    assert.deepEqual(mapFrames(line, mappable('svc-program.js', null)), []);
  }
  assert.ok(MAX_STACK_CHARS <= 64 * 1024);
});

test('a stack maps to program.ts with at most 20 frames, names cut, and one bounded excerpt', async () => {
  const longLine = `export function main() { const pad = "${'p'.repeat(5000)}"; return f(pad); }\nfunction f(x: string) { throw new Error(x.slice(0, 1)); }`;
  const compiled = await compileProgram({ source: longLine, availableModules: [] });
  assert.ok(compiled.ok);
  const map = mappable(compiled.script.filename, compiled.script.sourceMap);
  // A stack in V8's format pointing at real positions of the compiled script: find `throw`.
  const code = compiled.script.code;
  const at = code.indexOf('throw new Error');
  const before = code.slice(0, at);
  const line = before.split('\n').length;
  const column = at - before.lastIndexOf('\n');
  const frame = `    at ${'n'.repeat(1000)} (svc-program.js:${line}:${column})`;
  const trace = renderTrace(`Error: p\n${`${frame}\n`.repeat(100)}`, map, compiled.script.sources['program.ts']);
  const lines = trace.split('\n');
  assert.equal(lines.filter((l) => l.startsWith('    at ')).length, 20);
  assert.match(lines[0], /^ {4}at n{200}… \(program\.ts:2:\d+\)$/);
  assert.ok(trace.length < 8 * 1024, String(trace.length));
  assert.match(trace, /\n\n2 \| function f\(x: string\) \{ throw new Error/);
});

test('an excerpt of a very long line is a window around the column with the caret under it', () => {
  const source = `const a = 1;\n${'x'.repeat(100_000)}ERROR${'y'.repeat(100_000)}\n`;
  const text = excerpt(source, 2, 100_001);
  const [shown, caret] = text.split('\n');
  assert.ok(shown.length < 200, String(shown.length));
  assert.equal(shown[caret.indexOf('^')], 'E');
  assert.equal(excerpt('one\ntwo', 2, 2), '2 | two\n     ^');
  assert.equal(excerpt('one', 5, 1), '');
});
