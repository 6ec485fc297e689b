// Issue 36's attacks for bench/attacks.ts: host work whose cost grows with what a program
// wrote or asked for. Each has a preparation (not measured) and the attack, during which
// bench/attacks.ts asks `/healthz` one request after the other. Sizes are chosen so the
// attack takes seconds on the unchanged code, not minutes (each note says what it scales).
import { fork, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { lowerPriority } from '../sandbox/pool/priority';
import type { TestServer } from '../test/harness';
import type { FarEndListen } from './far-end';
import { heapAfterGc, retainedEnabled } from './retained-heap';

export interface HeavyAttack {
  name: string;
  prepare(): Promise<void>;
  /** Resolves with the attack's own outcome once it is over. */
  attack(): Promise<string>;
  cleanUp?(): Promise<void>;
  /** Figures of its own, added to its row once the attack is over. */
  report?(): Promise<Record<string, string>>;
}

const BLUEPRINT = `name: heavy
allow_insecure_http: true
default: allow
vfs: per_session
git: {identity: {name: Bench, email: bench@example.com}}
`;

/** Lines of 'a' that `\\w{1,500}\\d` scans at ~20 ms per kB in re2js (linear, but a large automaton). */
const SEARCH_LINES = 30;
const SEARCH_PATTERN = String.raw`\\w{1,500}\\d`;
/** Files a deleted session holds (the 300,000 take minutes to write; the stall grows with the count). */
const SESSION_FILES = 60_000;
const BODY_BYTES = 50 * 1024 * 1024;
const BODY_READERS = 16;
/** BENCH_FANOUT_RUNS: fewer runs, so that under load every call reaches the far end before the first 8 s limits expire (BENCH_RETAINED). */
const FANOUT_RUNS = Number(process.env.BENCH_FANOUT_RUNS ?? 150);
const FANOUT = 64;
/** Host-call arguments: each run writes one file of this many characters (JSON text the server parses). */
const ARGS_CHARS = 16 * 1024 * 1024;
const ARGS_WRITERS = 16;
/** svc:http text verbs: bodies the verb hands to the program as text. */
const TEXT_BYTES = 20 * 1024 * 1024;
const TEXT_READERS = 8;

/** BENCH_FAR_END_NICE: the far ends' process below the server (10 by default; 0: at its priority). */
const FAR_END_NICE = Number(process.env.BENCH_FAR_END_NICE ?? 10);

/** The far ends' process (./far-end.ts): one far end at a time. */
class FarEnds {
  private child: ChildProcess | null = null;
  /** Called with the open requests when a `never` far end's `notifyAt` request arrives. */
  onNotify: ((open: number) => void) | null = null;

  /** Starts a far end; resolves with its URL. */
  async listen(ask: FarEndListen): Promise<string> {
    const reply = await this.ask(ask, 'url');
    return reply.url as string;
  }

  /** Closes the far end; resolves with the requests it saw. */
  async close(): Promise<number> {
    if (!this.child) return 0;
    return (await this.ask({ close: true }, 'arrived')).arrived as number;
  }

  end(): void {
    this.child?.disconnect();
    this.child = null;
  }

  private async process(): Promise<ChildProcess> {
    if (this.child) return this.child;
    // A session of its own (detached: setsid), so its autogroup is its own to lower.
    const child = fork(path.join(import.meta.dirname, 'far-end.ts'), [], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'], detached: true });
    child.on('message', (message: { open?: number }) => {
      if (message.open !== undefined) this.onNotify?.(message.open);
    });
    await new Promise<void>((resolve, reject) => child.once('spawn', resolve).once('error', reject));
    if (FAR_END_NICE > 0) await lowerPriority(child.pid!, FAR_END_NICE, (msg, fields) => console.error(msg, fields), true);
    this.child = child;
    return child;
  }

  private async ask(message: FarEndListen | { close: true }, answer: string): Promise<Record<string, unknown>> {
    const child = await this.process();
    return new Promise((resolve, reject) => {
      const exited = (code: number | null) => reject(new Error(`the far end exited (${code})`));
      const listener = (reply: Record<string, unknown>) => {
        if (!(answer in reply)) return;
        child.off('message', listener).off('exit', exited);
        resolve(reply);
      };
      child.on('message', listener).once('exit', exited);
      child.send(message);
    });
  }
}

export function heavyAttacks(server: TestServer): HeavyAttack[] {
  let registered = false;
  const register = async (): Promise<void> => {
    if (registered) return;
    const created = await server.request('POST', '/v1/blueprints', { body: { yaml: BLUEPRINT } });
    if (created.status >= 300) throw new Error(`could not register the Blueprint: ${created.text}`);
    registered = true;
  };
  const session = async (): Promise<string> => {
    await register();
    const opened = await server.request('POST', '/v1/sessions', { token: server.userToken, body: { blueprint: 'heavy' } });
    if (opened.status !== 200) throw new Error(`could not open a session: ${opened.text}`);
    return opened.json.session_id as string;
  };
  const run = async (sessionId: string, code: string): Promise<string> => {
    const reply = await server.request('POST', `/v1/sessions/${sessionId}/execute`, { token: server.userToken, body: { code } });
    if (reply.status !== 200 || reply.json.error) throw new Error(`${reply.status} ${reply.json?.error?.kind ?? ''}: ${reply.json?.error?.message ?? reply.text}`.slice(0, 300));
    return String(reply.json.result).slice(0, 60);
  };
  const oneOff = async (code: string): Promise<string> => {
    const reply = await server.request('POST', '/v1/execute', { token: server.userToken, body: { blueprint: 'heavy', code } });
    return reply.status === 200 && !reply.json.error ? 'ok' : `${reply.status} ${reply.json?.error?.kind ?? ''} (${String(reply.json?.error?.message ?? reply.text).slice(0, 120)})`;
  };
  const tally = (outcomes: string[]) => {
    const counts = new Map<string, number>();
    for (const outcome of outcomes) counts.set(outcome, (counts.get(outcome) ?? 0) + 1);
    return [...counts].map(([outcome, n]) => `${n}x ${outcome}`).join(', ');
  };

  let searchSession = '';
  let gitSession = '';
  let diffSession = '';
  let deletedSession = '';
  const farEnds = new FarEnds();
  let farUrl = '';

  return [
    {
      name: `code.search \\w{1,500}\\d over ${SEARCH_LINES} 10 kB lines`,
      async prepare() {
        searchSession = await session();
        await run(searchSession, `import * as fs from "svc:fs";\nexport function main() { fs.writeText("/big.txt", ("a".repeat(10000) + "\\n").repeat(${SEARCH_LINES})); return 1; }`);
      },
      attack: () => run(searchSession, `import * as code from "svc:code";\nexport function main() { return code.search("${SEARCH_PATTERN}", { path: "/", mode: "counts" }).counts.length; }`),
    },
    {
      name: 'git add of a 24 MB file',
      async prepare() {
        gitSession = await session();
        await run(gitSession, `import * as fs from "svc:fs";\nimport { Repository } from "svc:git";\nexport function main() { Repository.init("/repo"); fs.writeText("/repo/big.txt", Array.from({ length: 400000 }, (_, i) => "line " + i + " of the large file, some text to fill").join("\\n")); return 1; }`);
      },
      attack: () => run(gitSession, `import { Repository } from "svc:git";\nexport function main() { new Repository("/repo").add(["big.txt"]); return 1; }`),
    },
    {
      name: 'git diff of a 2 MB file, every 20th line changed',
      async prepare() {
        diffSession = await session();
        await run(diffSession, `import * as fs from "svc:fs";\nimport { Repository } from "svc:git";\nexport function main() { const r = Repository.init("/repo"); fs.writeText("/repo/big.txt", Array.from({ length: 40000 }, (_, i) => "line " + i + " of the file").join("\\n")); r.add(["big.txt"]); r.commit("base"); fs.writeText("/repo/big.txt", Array.from({ length: 40000 }, (_, i) => (i % 20 === 0 ? "changed " : "line ") + i + " of the file").join("\\n")); return 1; }`);
      },
      attack: () => run(diffSession, `import { Repository } from "svc:git";\nexport function main() { return new Repository("/repo").diff().patch.length; }`),
    },
    {
      name: `delete a session holding ${SESSION_FILES.toLocaleString('en')} files`,
      async prepare() {
        deletedSession = await session();
        await run(deletedSession, `import * as fs from "svc:fs";\nexport function main() { fs.writeText("/a.txt", "a"); return 1; }`);
        // Written straight to the session's directory: tens of thousands of host calls would take minutes.
        const dir = path.join(server.home, 'server', 'vfs', 'sessions', deletedSession);
        for (let d = 0; d < SESSION_FILES / 500; d++) {
          const sub = path.join(dir, `d${d}`);
          await fs.promises.mkdir(sub);
          await Promise.all(Array.from({ length: 500 }, (_, f) => fs.promises.writeFile(path.join(sub, `f${f}.txt`), 'x')));
        }
      },
      async attack() {
        const reply = await server.request('DELETE', `/v1/sessions/${deletedSession}`, { token: server.userToken });
        return String(reply.status);
      },
    },
    {
      name: `${BODY_READERS} runs reading 50 MiB fetch bodies`,
      async prepare() {
        await register();
        farUrl = await farEnds.listen({ listen: 'bytes', bytes: BODY_BYTES });
      },
      async attack() {
        const code = `export async function main() { const r = await fetch("${farUrl}/body"); return (await r.arrayBuffer()).byteLength; }`;
        return tally(await Promise.all(Array.from({ length: BODY_READERS }, () => oneOff(code))));
      },
      async cleanUp() {
        await farEnds.close();
        farEnds.end();
      },
    },
    {
      name: `${ARGS_WRITERS} runs writing ${ARGS_CHARS / 1024 / 1024} MiB files (host-call arguments)`,
      async prepare() {
        await register();
      },
      async attack() {
        const code = `import * as fs from "svc:fs";\nexport function main() { fs.writeText("/big.txt", "x".repeat(${ARGS_CHARS})); return 1; }`;
        return tally(await Promise.all(Array.from({ length: ARGS_WRITERS }, () => oneOff(code))));
      },
    },
    {
      name: `${TEXT_READERS} runs reading ${TEXT_BYTES / 1024 / 1024} MiB bodies as text (svc:http get)`,
      async prepare() {
        await register();
        farUrl = await farEnds.listen({ listen: 'text', bytes: TEXT_BYTES });
      },
      async attack() {
        const code = `import * as http from "svc:http";\nexport function main() { return http.get("${farUrl}/text").body.length; }`;
        return tally(await Promise.all(Array.from({ length: TEXT_READERS }, () => oneOff(code))));
      },
      async cleanUp() {
        await farEnds.close();
        farEnds.end();
      },
    },
    (() => {
      const calls = FANOUT_RUNS * FANOUT;
      const retainedAt = process.env.BENCH_RETAINED_AT === 'all' ? calls : Math.floor(calls / 2);
      let baseline = 0;
      let retained: Promise<{ bytes: number; waiting: number }> | null = null;
      return {
      name: `${FANOUT_RUNS} runs x ${FANOUT} fetches to a host that never answers (8 s)`,
      async prepare() {
        await register();
        retained = null;
        // BENCH_RETAINED=1: the heap the server keeps per call waiting, measured when the far end holds every call.
        if (retainedEnabled()) baseline = await heapAfterGc(server);
        // Under load the first calls' limits may expire before the last ones arrive: measured once half
        // of the calls arrived (every one with BENCH_RETAINED_AT=all), per call still open.
        farEnds.onNotify = (waiting) => {
          retained = heapAfterGc(server).then((bytes) => ({ bytes, waiting }));
        };
        farUrl = await farEnds.listen({ listen: 'never', notifyAt: retainedEnabled() ? retainedAt : undefined });
      },
      async report(): Promise<Record<string, string>> {
        const row: Record<string, string> = { 'far end saw calls': String(await farEnds.close()) };
        if (retained) {
          const { bytes, waiting } = await retained;
          row['retained KiB per call in flight'] = `${((bytes - baseline) / waiting / 1024).toFixed(1)} (${waiting} waiting)`;
        }
        return row;
      },
      async attack() {
        const code = `export async function main() { const signal = AbortSignal.timeout(8000); const all = await Promise.allSettled(Array.from({ length: ${FANOUT} }, (_, i) => fetch("${farUrl}/never/" + i, { signal }))); return all.filter((a) => a.status === "rejected").length; }`;
        return tally(await Promise.all(Array.from({ length: FANOUT_RUNS }, () => oneOff(code))));
      },
      async cleanUp() {
        await farEnds.close();
        farEnds.end();
      },
      };
    })(),
  ];
}
