// `console`: the WHATWG Console namespace. Each call is one line (arguments rendered and
// space-joined; a first string argument's %s %d %i %f %o %O %c %% are format specifiers),
// sent to the runner as it happens so the lines survive a run that ends at a limit. The
// runner caps lines and bytes on its side; this side only guarantees the line is a string.
// group() indents later lines by two spaces per level; count/time keep their state per run
// (a fresh context each run).
// The namespace is made the first time a program reads `console` (consoleGroup, through
// ./lazy-group.ts): most runs never log. By then the program may have replaced any built-in,
// so making it reads only captured intrinsics.
import { native } from './native';
import {
  ArrayIsArray,
  ArrayPrototypeJoin,
  ArrayPrototypePush,
  DateNow,
  Error_,
  ReflectApply,
  ObjectCreate,
  ObjectDefineProperty,
  ObjectKeys,
  ObjectPrototype,
  ObjectPrototypeHasOwnProperty,
  own,
  SafeMap,
  String_,
  StringPrototypeCharCodeAt,
  StringPrototypeIndexOf,
  StringPrototypeRepeat,
  StringPrototypeSlice,
  stringSplit,
  SymbolToStringTag,
} from './primordials';
import { BoundedText, renderValue, TEXT_LIMIT, writeRendered } from './render';
import { lazyGroup, provide } from './lazy-group';

// Captured with the other built-ins: a program's replacements do not reach console lines.
const MathTrunc = Math.trunc;
const NumberParseInt = Number.parseInt;
const NumberParseFloat = Number.parseFloat;

type Method = (...args: unknown[]) => void;

function render(value: unknown): string {
  try {
    return renderValue(value);
  } catch {
    return '[unrenderable value]';
  }
}

/**
 * The first argument's format specifiers applied, then the rest rendered and space-joined,
 * written into one bounded text: a line stops at the bound however large its arguments.
 */
export function formatArgs(args: readonly unknown[]): string {
  const out = new BoundedText();
  let next = 0;
  if (typeof args[0] === 'string') {
    const format = args[0];
    next = 1;
    let last = 0;
    for (let i = 0; i < format.length - 1; i++) {
      if (StringPrototypeCharCodeAt(format, i) !== 0x25) continue;
      const spec = format[i + 1];
      let piece: string | null = null;
      let value: unknown;
      let rendered = false;
      if (spec === '%') piece = '%';
      else if (next < args.length) {
        const arg = args[next];
        if (spec === 's' || spec === 'o' || spec === 'O' || spec === 'j') (value = arg), (rendered = true);
        else if (spec === 'd' || spec === 'i') piece = typeof arg === 'symbol' ? 'NaN' : typeof arg === 'bigint' ? `${String_(arg)}n` : String_(MathTrunc(NumberParseInt(String_(arg), 10)));
        else if (spec === 'f') piece = typeof arg === 'symbol' ? 'NaN' : String_(NumberParseFloat(String_(arg)));
        else if (spec === 'c') piece = ''; // CSS: nothing to style in a text line
        if ((piece !== null || rendered) && spec !== '%') next++;
      }
      if (piece === null && !rendered) continue;
      if (!out.tryWrite(StringPrototypeSlice(format, last, i))) return out.text();
      if (!(rendered ? writeRendered(out, value) : out.tryWrite(piece as string))) return out.text();
      last = i + 2;
      i++;
    }
    if (!out.tryWrite(StringPrototypeSlice(format, last))) return out.text();
  }
  for (let i = next; i < args.length; i++) {
    if ((i > 0 && !out.tryWrite(' ')) || !writeRendered(out, args[i])) break;
  }
  return out.text();
}

/** console.table's text: a box-drawn grid of the rows (own enumerable keys) and their columns. */
function table(data: unknown, columns?: unknown): string {
  if (data === null || typeof data !== 'object') return formatArgs([data]);
  // An array's rows are its indices, read one at a time: listing them all first costs a string per element.
  const isArray = ArrayIsArray(data);
  const rowCount = isArray ? (data as unknown[]).length : 0;
  const rowKeys = isArray ? [] : ObjectKeys(data);
  let cut = false;
  let size = 0;
  const header: string[] = ['(index)'];
  const columnIndex = new SafeMap<string, number>();
  let hasValues = false;
  const rows: string[][] = [];
  const only = columns !== undefined && columns !== null && typeof columns === 'object' ? (columns as unknown[]) : null;
  if (only !== null) {
    for (let i = 0; i < only.length; i++) {
      columnIndex.set(String_(only[i]), header.length);
      ArrayPrototypePush(header, String_(only[i]));
    }
  }
  for (let r = 0; r < (isArray ? rowCount : rowKeys.length); r++) {
    const rowKey = isArray ? String_(r) : rowKeys[r];
    if (isArray && !ObjectPrototypeHasOwnProperty(data, rowKey)) continue;
    // The grid grows with its cells: past the bound, the rows so far and a note.
    if (size > TEXT_LIMIT) {
      cut = true;
      break;
    }
    const row = own(data, rowKey);
    const cells: string[] = [rowKey];
    if (row !== null && typeof row === 'object') {
      const keys = ObjectKeys(row);
      for (let k = 0; k < keys.length; k++) {
        let at = columnIndex.get(keys[k]);
        if (at === undefined) {
          if (only !== null) continue;
          at = header.length;
          columnIndex.set(keys[k], at);
          ArrayPrototypePush(header, keys[k]);
        }
        while (cells.length <= at) ArrayPrototypePush(cells, '');
        cells[at] = formatArgs([own(row, keys[k])]);
        size += cells[at].length + 3;
      }
    } else {
      hasValues = true;
      const value = formatArgs([row]);
      size += value.length + 3;
      ArrayPrototypePush(cells, '\u0000value', value);
    }
    ArrayPrototypePush(rows, cells);
  }
  if (hasValues) ArrayPrototypePush(header, 'Values');
  const valuesAt = header.length - 1;
  const grid: string[][] = [];
  for (let r = 0; r < rows.length; r++) {
    const cells = rows[r];
    const line: string[] = [];
    for (let c = 0; c < header.length; c++) ArrayPrototypePush(line, '');
    for (let c = 0; c < cells.length; c++) {
      if (cells[c] === '\u0000value') {
        line[valuesAt] = cells[c + 1];
        break;
      }
      line[c] = cells[c];
    }
    ArrayPrototypePush(grid, line);
  }
  const widths: number[] = [];
  for (let c = 0; c < header.length; c++) {
    let width = header[c].length;
    for (let r = 0; r < grid.length; r++) if (grid[r][c].length > width) width = grid[r][c].length;
    ArrayPrototypePush(widths, width + 2);
  }
  const rule = (left: string, middle: string, right: string) => {
    const pieces: string[] = [];
    for (let c = 0; c < widths.length; c++) ArrayPrototypePush(pieces, StringPrototypeRepeat('─', widths[c]));
    return left + ArrayPrototypeJoin(pieces, middle) + right;
  };
  const lineOf = (cells: string[]) => {
    const pieces: string[] = [];
    for (let c = 0; c < widths.length; c++) {
      const text = cells[c];
      const space = widths[c] - text.length;
      const before = space >> 1;
      ArrayPrototypePush(pieces, StringPrototypeRepeat(' ', before) + text + StringPrototypeRepeat(' ', space - before));
    }
    return `│${ArrayPrototypeJoin(pieces, '│')}│`;
  };
  const out: string[] = [rule('┌', '┬', '┐'), lineOf(header), rule('├', '┼', '┤')];
  for (let r = 0; r < grid.length; r++) ArrayPrototypePush(out, lineOf(grid[r]));
  ArrayPrototypePush(out, rule('└', '┴', '┘'));
  const text = new BoundedText();
  text.tryWrite(ArrayPrototypeJoin(out, '\n'));
  if (cut) text.truncated = true;
  return text.text();
}

/** The global `console`, made on first read (./globals.ts defines it lazily). */
export const consoleGroup = lazyGroup<object>(() => provide(consoleGroup, makeConsole()));

function makeConsole(): object {
  let indent = '';
  const counts = new SafeMap<string, number>();
  const timers = new SafeMap<string, number>();
  const emit = (text: string) => {
    if (indent === '') {
      native.console(text);
      return;
    }
    native.console(indent + ArrayPrototypeJoin(stringSplit(text, '\n'), `\n${indent}`));
  };
  const line: Method = (...args) => emit(formatArgs(args));
  const label = (value: unknown) => (value === undefined ? 'default' : String_(value));
  const elapsed = (start: number) => `${DateNow() - start}ms`;

  const methods: Record<string, Method> = {
    log: line,
    info: line,
    warn: line,
    error: line,
    debug: line,
    dirxml: line,
    dir: (value) => emit(render(value)),
    table: (data, columns) => emit(table(data, columns)),
    trace: (...args) => {
      // The stack from the caller on: the first frame is this function's.
      const stack = String_(new Error_().stack ?? '');
      const first = StringPrototypeIndexOf(stack, '\n    at ');
      const second = first === -1 ? -1 : StringPrototypeIndexOf(stack, '\n    at ', first + 1);
      const frames = first === -1 ? '' : StringPrototypeSlice(stack, second === -1 ? first : second);
      emit(`Trace${args.length > 0 ? `: ${formatArgs(args)}` : ''}${frames}`);
    },
    assert: (condition, ...data) => {
      if (condition) return;
      if (data.length === 0) emit('Assertion failed');
      else if (typeof data[0] === 'string') emit(formatArgs(withFirst(`Assertion failed: ${data[0]}`, data, 1)));
      else emit(formatArgs(withFirst('Assertion failed', data, 0)));
    },
    count: (value) => {
      const name = label(value);
      const count = (counts.get(name) ?? 0) + 1;
      counts.set(name, count);
      emit(`${name}: ${count}`);
    },
    countReset: (value) => {
      const name = label(value);
      if (counts.get(name) === undefined) emit(`Count for '${name}' does not exist`);
      else counts.set(name, 0);
    },
    group: (...data) => {
      if (data.length > 0) ReflectApply(line, undefined, data);
      indent += '  ';
    },
    groupCollapsed: (...data) => {
      if (data.length > 0) ReflectApply(line, undefined, data);
      indent += '  ';
    },
    groupEnd: () => {
      indent = StringPrototypeSlice(indent, 2);
    },
    time: (value) => {
      const name = label(value);
      if (timers.get(name) !== undefined) emit(`Timer '${name}' already exists`);
      else timers.set(name, DateNow());
    },
    timeLog: (value, ...data) => {
      const name = label(value);
      const start = timers.get(name);
      if (start === undefined) emit(`Timer '${name}' does not exist`);
      else emit(data.length > 0 ? `${name}: ${elapsed(start)} ${formatArgs(data)}` : `${name}: ${elapsed(start)}`);
    },
    timeEnd: (value) => {
      const name = label(value);
      const start = timers.get(name);
      if (start === undefined) emit(`Timer '${name}' does not exist`);
      else {
        timers.delete(name);
        emit(`${name}: ${elapsed(start)}`);
      }
    },
    timeStamp: () => {},
    profile: () => {},
    profileEnd: () => {},
    clear: () => {},
  };

  // A namespace object: its [[Prototype]] is an empty object whose prototype is Object.prototype.
  const console = ObjectCreate(ObjectCreate(ObjectPrototype));
  const names = ObjectKeys(methods);
  for (let i = 0; i < names.length; i++) ObjectDefineProperty(console, names[i], { value: methods[names[i]], writable: true, enumerable: true, configurable: true });
  ObjectDefineProperty(console, SymbolToStringTag, { value: 'console', writable: false, enumerable: false, configurable: true });
  return console;
}

/** `[first, ...list.slice(from)]` without running an iterator. */
function withFirst(first: unknown, list: unknown[], from: number): unknown[] {
  const out: unknown[] = [first];
  for (let i = from; i < list.length; i++) ArrayPrototypePush(out, list[i]);
  return out;
}
