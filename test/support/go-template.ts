// A small renderer for the subset of Go templates (plus the Sprig functions) that the Helm
// chart in deploy/helm/svc uses, so tests can render it where the `helm` binary is not
// installed. It fails loudly on anything outside the subset instead of guessing.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';

type Node =
  | { kind: 'text'; text: string }
  | { kind: 'out'; pipe: string }
  | { kind: 'if'; branches: Array<{ cond: string | null; body: Node[] }> }
  | { kind: 'range'; vars: string[]; pipe: string; body: Node[] }
  | { kind: 'define'; name: string; body: Node[] };

interface Scope {
  dot: unknown;
  root: unknown;
  vars: Record<string, unknown>;
}

export class TemplateError extends Error {}

function lex(source: string): Array<{ text: string } | { action: string }> {
  const out: Array<{ text: string } | { action: string }> = [];
  let i = 0;
  while (i < source.length) {
    const open = source.indexOf('{{', i);
    if (open < 0) {
      out.push({ text: source.slice(i) });
      break;
    }
    let text = source.slice(i, open);
    let start = open + 2;
    if (source[start] === '-' && source[start + 1] === ' ') {
      text = text.replace(/\s+$/, '');
      start++;
    }
    out.push({ text });
    const close = source.indexOf('}}', start);
    if (close < 0) throw new TemplateError('unclosed action');
    let end = close;
    let next = close + 2;
    if (source[close - 1] === '-' && source[close - 2] === ' ') {
      end = close - 1;
      while (next < source.length && /\s/.test(source[next])) next++;
    }
    out.push({ action: source.slice(start, end).trim() });
    i = next;
  }
  return out;
}

function parse(source: string): Node[] {
  const tokens = lex(source);
  let pos = 0;
  const block = (terminators: string[]): { body: Node[]; end: string } => {
    const body: Node[] = [];
    while (pos < tokens.length) {
      const token = tokens[pos++];
      if ('text' in token) {
        if (token.text) body.push({ kind: 'text', text: token.text });
        continue;
      }
      const action = token.action;
      const word = action.split(/\s+/)[0];
      if (action.startsWith('/*')) continue;
      if (terminators.includes(word)) return { body, end: action };
      if (word === 'if') {
        const branches: Array<{ cond: string | null; body: Node[] }> = [];
        let cond: string | null = action.slice(2).trim();
        for (;;) {
          const inner = block(['else', 'end']);
          branches.push({ cond, body: inner.body });
          if (inner.end === 'end') break;
          const rest = inner.end.slice(4).trim();
          if (rest.startsWith('if ')) cond = rest.slice(3).trim();
          else if (rest === '') cond = null;
          else throw new TemplateError(`unsupported else form: ${inner.end}`);
        }
        body.push({ kind: 'if', branches });
      } else if (word === 'range') {
        const spec = action.slice(5).trim();
        const m = /^(\$\w+)(?:\s*,\s*(\$\w+))?\s*:=\s*(.+)$/.exec(spec);
        const inner = block(['end']);
        body.push({ kind: 'range', vars: m ? [m[1], m[2]].filter(Boolean) as string[] : [], pipe: m ? m[3] : spec, body: inner.body });
      } else if (word === 'define') {
        const name = JSON.parse(action.slice(6).trim()) as string;
        body.push({ kind: 'define', name, body: block(['end']).body });
      } else if (['with', 'template', 'block'].includes(word)) {
        throw new TemplateError(`unsupported action: ${word}`);
      } else {
        body.push({ kind: 'out', pipe: action });
      }
    }
    if (terminators.length > 0) throw new TemplateError(`missing {{ end }} (expected ${terminators.join('/')})`);
    return { body, end: '' };
  };
  return block([]).body;
}

function splitTop(text: string, separator: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let quote = false;
  let current = '';
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (quote) {
      current += ch;
      if (ch === '\\') current += text[++i];
      else if (ch === '"') quote = false;
      continue;
    }
    if (ch === '"') quote = true;
    if (ch === '(') depth++;
    if (ch === ')') depth--;
    if (depth === 0 && (separator === ' ' ? /\s/.test(ch) : ch === separator)) {
      if (current.trim()) parts.push(current.trim());
      current = '';
      continue;
    }
    current += ch;
  }
  if (current.trim()) parts.push(current.trim());
  return parts;
}

function truthy(value: unknown): boolean {
  if (value === undefined || value === null || value === false || value === 0 || value === '') return false;
  if (Array.isArray(value)) return value.length > 0;
  if (typeof value === 'object') return Object.keys(value as object).length > 0;
  return true;
}

function field(base: unknown, names: string[]): unknown {
  let value = base;
  for (const name of names) {
    if (value === undefined || value === null) return undefined;
    value = (value as Record<string, unknown>)[name];
  }
  return value;
}

function text(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'object') throw new TemplateError('printing a map or list directly; use toYaml');
  return String(value);
}

export class ChartRenderer {
  private readonly defines = new Map<string, Node[]>();

  constructor(private readonly chartDir: string) {
    for (const name of this.templateFiles()) if (name.endsWith('.tpl')) this.collectDefines(parse(this.read(name)));
  }

  private read(name: string): string {
    return readFileSync(path.join(this.chartDir, 'templates', name), 'utf8');
  }

  templateFiles(): string[] {
    return readdirSync(path.join(this.chartDir, 'templates')).sort();
  }

  private collectDefines(nodes: Node[]): void {
    for (const node of nodes) if (node.kind === 'define') this.defines.set(node.name, node.body);
  }

  /** Renders every manifest template with the chart's values.yaml merged with `overrides`. */
  render(overrides: Record<string, unknown>, release = { Name: 'demo', Namespace: 'tools' }): Map<string, string> {
    const chart = YAML.parse(readFileSync(path.join(this.chartDir, 'Chart.yaml'), 'utf8')) as Record<string, unknown>;
    const values = merge(YAML.parse(readFileSync(path.join(this.chartDir, 'values.yaml'), 'utf8')) as Record<string, unknown>, overrides);
    const root = { Values: values, Release: { ...release, Service: 'Helm' }, Chart: { Name: chart.name, Version: chart.version, AppVersion: chart.appVersion } };
    const out = new Map<string, string>();
    for (const name of this.templateFiles()) {
      if (!name.endsWith('.yaml')) continue;
      const nodes = parse(this.read(name));
      this.collectDefines(nodes);
      out.set(name, this.exec(nodes, { dot: root, root, vars: {} }));
    }
    return out;
  }

  private exec(nodes: Node[], scope: Scope): string {
    let out = '';
    for (const node of nodes) {
      switch (node.kind) {
        case 'text':
          out += node.text;
          break;
        case 'out':
          out += text(this.pipeline(node.pipe, scope));
          break;
        case 'if': {
          const branch = node.branches.find((b) => b.cond === null || truthy(this.pipeline(b.cond, scope)));
          if (branch) out += this.exec(branch.body, scope);
          break;
        }
        case 'range': {
          const list = this.pipeline(node.pipe, scope);
          const entries: Array<[unknown, unknown]> = Array.isArray(list)
            ? list.map((v, i) => [i, v])
            : list && typeof list === 'object'
              ? Object.entries(list).sort(([a], [b]) => (a < b ? -1 : 1))
              : [];
          for (const [key, value] of entries) {
            const vars = { ...scope.vars };
            if (node.vars.length === 1) vars[node.vars[0]] = value;
            if (node.vars.length === 2) Object.assign(vars, { [node.vars[0]]: key, [node.vars[1]]: value });
            out += this.exec(node.body, { dot: value, root: scope.root, vars });
          }
          break;
        }
        case 'define':
          break;
      }
    }
    return out;
  }

  private pipeline(source: string, scope: Scope): unknown {
    const commands = splitTop(source, '|');
    let value: unknown;
    commands.forEach((command, index) => {
      const words = splitTop(command, ' ');
      const args = index === 0 ? [] : [value];
      value = this.command(words, scope, args);
    });
    return value;
  }

  private command(words: string[], scope: Scope, piped: unknown[]): unknown {
    const [head, ...rest] = words;
    if (/^[a-zA-Z]\w*$/.test(head) && !['true', 'false', 'nil'].includes(head)) {
      return this.call(head, [...rest.map((w) => this.operand(w, scope)), ...piped]);
    }
    if (rest.length > 0 || piped.length > 0) throw new TemplateError(`cannot apply arguments to ${head}`);
    return this.operand(head, scope);
  }

  private operand(word: string, scope: Scope): unknown {
    if (word.startsWith('(')) return this.pipeline(word.slice(1, -1), scope);
    if (word.startsWith('"')) return JSON.parse(word);
    if (/^-?\d+$/.test(word)) return Number(word);
    if (word === 'true' || word === 'false') return word === 'true';
    if (word === 'nil') return null;
    if (word === '.') return scope.dot;
    if (word.startsWith('.')) return field(scope.dot, word.slice(1).split('.'));
    if (word === '$') return scope.root;
    if (word.startsWith('$.')) return field(scope.root, word.slice(2).split('.'));
    if (word.startsWith('$')) {
      const [name, ...names] = word.split('.');
      if (!(name in scope.vars)) throw new TemplateError(`undefined variable ${name}`);
      return field(scope.vars[name], names);
    }
    throw new TemplateError(`unsupported operand ${word}`);
  }

  private call(name: string, args: unknown[]): unknown {
    const str = (v: unknown) => text(v);
    switch (name) {
      case 'include': {
        const body = this.defines.get(args[0] as string);
        if (!body) throw new TemplateError(`no template named ${String(args[0])}`);
        return this.exec(body, { dot: args[1], root: args[1], vars: {} });
      }
      case 'printf': {
        let i = 1;
        return str(args[0]).replace(/%[sdv]/g, () => str(args[i++]));
      }
      case 'trunc':
        return str(args[1]).slice(0, args[0] as number);
      case 'trimSuffix':
        return str(args[1]).endsWith(str(args[0])) ? str(args[1]).slice(0, -str(args[0]).length || undefined) : str(args[1]);
      case 'quote':
        return JSON.stringify(str(args[0]));
      case 'b64enc':
        return Buffer.from(str(args[0])).toString('base64');
      case 'sha256sum':
        return createHash('sha256').update(str(args[0])).digest('hex');
      case 'toYaml':
        // As Helm's (Go's YAML): map keys sorted, list items not indented; a checksum of the text must match.
        return args[0] === undefined || args[0] === null ? '' : YAML.stringify(args[0], { sortMapEntries: true, indentSeq: false }).replace(/\n$/, '');
      case 'indent':
      case 'nindent': {
        const pad = ' '.repeat(args[0] as number);
        const body = str(args[1]).split('\n').map((line) => pad + line).join('\n');
        return name === 'nindent' ? `\n${body}` : body;
      }
      case 'required':
        if (!truthy(args[1])) throw new TemplateError(str(args[0]));
        return args[1];
      case 'default':
        return truthy(args[1]) ? args[1] : args[0];
      case 'not':
        return !truthy(args[0]);
      case 'or':
        return args.find(truthy) ?? args[args.length - 1];
      case 'and':
        return args.every(truthy) ? args[args.length - 1] : args.find((a) => !truthy(a));
      case 'eq':
        return args[0] === args[1];
      case 'gt':
        return (args[0] as number) > (args[1] as number);
      case 'int':
        return Math.trunc(Number(args[0]));
      default:
        throw new TemplateError(`unsupported function ${name}`);
    }
  }
}

function merge(base: Record<string, unknown>, over: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(over)) {
    const current = out[key];
    out[key] =
      value && typeof value === 'object' && !Array.isArray(value) && current && typeof current === 'object' && !Array.isArray(current)
        ? merge(current as Record<string, unknown>, value as Record<string, unknown>)
        : value;
  }
  return out;
}
