// The server's main-thread full collections and their phases, from a bench run with a
// trace-gc-nvp file in BENCH_LOOP_DELAY's <dir> (./loop-delay-hook.cjs copies the server's
// stdout to <dir>/<pid>.stdout). Usage: node --import tsx bench/gc-phases.ts <dir>
// The main thread is the isolate with the most scavenges; each line is one mark-compact's
// atomic pause (perf_hooks reports it as `incremental` when marking ran before it).
import fs from 'node:fs';
import path from 'node:path';

/** The phases worth a column: the marking the concurrent markers left, clearing, moving, sweeping. */
const PHASES = ['mark', 'mark.full_closure_parallel', 'mark.roots', 'clear', 'clear.weak_references', 'clear.weak_collections', 'evacuate', 'evacuate.copy', 'evacuate.update_pointers', 'sweep', 'finish', 'heap.external.epilogue', 'incremental', 'background.mark'];

interface Collection {
  isolate: string;
  atMs: number;
  kind: string;
  fields: Map<string, number>;
}

function collections(text: string): Collection[] {
  const found: Collection[] = [];
  for (const match of text.matchAll(/\[\d+:(0x[0-9a-f]+)\]\s+(\d+) ms: (pause=[^\n]*)/g)) {
    const fields = new Map<string, number>();
    for (const [, name, value] of match[3].matchAll(/([\w.]+)=([\d.]+)/g)) fields.set(name, Number(value));
    found.push({ isolate: match[1], atMs: Number(match[2]), kind: /gc=(\w+)/.exec(match[3])?.[1] ?? '?', fields });
  }
  return found;
}

function mainIsolate(all: Collection[]): string | undefined {
  const scavenges = new Map<string, number>();
  for (const collection of all) if (collection.kind === 's') scavenges.set(collection.isolate, (scavenges.get(collection.isolate) ?? 0) + 1);
  return [...scavenges].sort((a, b) => b[1] - a[1])[0]?.[0];
}

const dir = process.argv[2];
if (!dir) throw new Error('usage: bench/gc-phases.ts <BENCH_LOOP_DELAY dir>');
for (const file of fs.readdirSync(dir).filter((name) => name.endsWith('.stdout'))) {
  const all = collections(fs.readFileSync(path.join(dir, file), 'utf8'));
  const main = mainIsolate(all);
  const scavengeMs = all.filter((c) => c.isolate === main && c.kind === 's').reduce((sum, c) => sum + (c.fields.get('pause') ?? 0), 0);
  console.log(`${file}: scavenges ${scavengeMs.toFixed(0)} ms in all`);
  for (const collection of all.filter((c) => c.isolate === main && c.kind === 'mc')) {
    const size = (name: string) => ((collection.fields.get(name) ?? 0) / 1048576).toFixed(0);
    const phases = PHASES.map((name) => `${name}=${collection.fields.get(name) ?? '-'}`).join(' ');
    console.log(`  ${collection.atMs} ms: pause=${collection.fields.get('pause')} ${phases} heap ${size('total_size_before')}->${size('total_size_after')} MiB`);
  }
}
