// The import graph of src/ and sandbox/ points one way: no module imports, directly or
// through others, a module that imports it, and no folder (src/http, sandbox/pool, ...)
// does either. Static `import`/`export ... from` of relative paths are read from the
// sources; type-only imports count too (a type in the wrong file is what makes a cycle).
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const IMPORT = /(?:^|\n)\s*(?:import|export)\s+(?:type\s+)?(?:[^'";]*?\s+from\s+)?['"](\.[^'"]*)['"]/g;

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return sources(full);
    return name.endsWith('.ts') && !name.endsWith('.d.ts') ? [full] : [];
  });
}

function resolve(from: string, specifier: string): string | null {
  const base = path.resolve(path.dirname(from), specifier);
  for (const candidate of [`${base}.ts`, path.join(base, 'index.ts'), base.replace(/\.js$/, '.ts')]) {
    if (existsSync(candidate) && statSync(candidate).isFile()) return candidate;
  }
  return null;
}

type Graph = Map<string, Set<string>>;

/** Strongly connected components of more than one node (Tarjan): each is a cycle. */
function cycles(graph: Graph): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (node: string): void => {
    index.set(node, next);
    low.set(node, next);
    next++;
    stack.push(node);
    onStack.add(node);
    for (const to of graph.get(node) ?? []) {
      if (!index.has(to)) {
        visit(to);
        low.set(node, Math.min(low.get(node)!, low.get(to)!));
      } else if (onStack.has(to)) low.set(node, Math.min(low.get(node)!, index.get(to)!));
    }
    if (low.get(node) === index.get(node)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      if (component.length > 1) found.push(component.sort());
    }
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return found;
}

const files = new Map<string, Set<string>>();
for (const file of ['src', 'sandbox'].flatMap((dir) => sources(path.join(root, dir)))) {
  const targets = new Set<string>();
  for (const match of readFileSync(file, 'utf8').matchAll(IMPORT)) {
    const target = resolve(file, match[1]);
    if (target) targets.add(path.relative(root, target));
  }
  files.set(path.relative(root, file), targets);
}

/** A file's folder one level below src/ or sandbox/ (src/http/routes/x.ts → src/http); a file at that level stands for itself. */
function folderOf(file: string): string {
  const parts = file.split(path.sep);
  return parts.length > 2 ? parts.slice(0, 2).join('/') : parts.join('/');
}

test('the import graph reads every source file and finds their imports', () => {
  assert.ok(files.size > 100, `only ${files.size} files read`);
  assert.ok(files.get(path.join('src', 'execution', 'executor.ts'))?.has(path.join('src', 'execution', 'result.ts')));
});

test('no module of src/ or sandbox/ imports itself through others', () => {
  assert.deepEqual(cycles(files), []);
});

test('no folder of src/ or sandbox/ imports itself through other folders', () => {
  const folders: Graph = new Map();
  const why: string[] = [];
  for (const [from, targets] of files) {
    for (const to of targets) {
      const a = folderOf(from);
      const b = folderOf(to);
      if (a === b) continue;
      if (!folders.has(a)) folders.set(a, new Set());
      folders.get(a)!.add(b);
      why.push(`${from} -> ${to}`);
    }
  }
  const found = cycles(folders);
  const evidence = found.map((cycle) => why.filter((edge) => cycle.includes(folderOf(edge.split(' -> ')[0])) && cycle.includes(folderOf(edge.split(' -> ')[1]))));
  assert.deepEqual(found, [], JSON.stringify(evidence, null, 1));
});

test('guest stack text is mapped only in the runner: src/ and sandbox/pool neither import the stack mapper nor name its functions', () => {
  const mapper = path.join('sandbox', 'compile', 'stack.ts');
  const names = /\b(mapRuntimeStack|renderRuntimeError|renderTrace|mappable)\b/;
  const serverSide = [...files.keys()].filter((file) => file.startsWith(`src${path.sep}`) || file.startsWith(`${path.join('sandbox', 'pool')}${path.sep}`) || file === path.join('sandbox', 'index.ts'));
  assert.ok(serverSide.length > 50);
  const offenders = serverSide.filter((file) => files.get(file)!.has(mapper) || names.test(readFileSync(path.join(root, file), 'utf8')));
  assert.deepEqual(offenders, []);
});
