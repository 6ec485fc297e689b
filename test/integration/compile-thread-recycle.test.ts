// The compile threads are replaced after `compile_thread_recycle` compiles (issue 39: a
// thread's exit returns all it kept). Runs keep answering right across replacements, the
// compiles in hand when one happens included, for two tokens sending new programs at once.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { startServer, type TestServer } from '../harness';

async function execute(server: TestServer, token: string, code: string) {
  const reply = await server.request('POST', '/v1/execute', { token, body: { blueprint: 'open', code } });
  assert.equal(reply.status, 200, reply.text.slice(0, 500));
  return reply.json as { result: unknown; error: { kind: string; message: string } | null };
}

/** `count` new programs (a compile each) from `token`, `lanes` at a time, each answered with its own number. */
async function newPrograms(server: TestServer, token: string, tag: string, count: number, lanes: number): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: lanes }, async () => {
      while (next < count) {
        const n = next++;
        const reply = await execute(server, token, `export function main() { return "${tag}" + ${n} * 3; }`);
        assert.equal(reply.result, `${tag}${n * 3}`, JSON.stringify(reply.error));
      }
    }),
  );
}

/** The server's child processes that have exited and were never waited for (zombies), by command. */
function zombieChildren(pid: number): string[] {
  const zombies: string[] = [];
  for (const thread of fs.readdirSync(`/proc/${pid}/task`)) {
    let children: string[] = [];
    try {
      children = fs.readFileSync(`/proc/${pid}/task/${thread}/children`, 'utf8').trim().split(/\s+/).filter(Boolean);
    } catch {
      continue; // the thread ended meanwhile
    }
    for (const child of children) {
      try {
        const stat = fs.readFileSync(`/proc/${child}/stat`, 'utf8');
        if (stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z')) zombies.push(stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')));
      } catch {
        // reaped meanwhile
      }
    }
  }
  return zombies;
}

function recycles(metrics: string): number {
  return Number(/^svc_compile_thread_recycles_total (\S+)$/m.exec(metrics)?.[1] ?? NaN);
}

test('the compile threads are replaced after compile_thread_recycle compiles, and two tokens\' runs answer right across the replacements', async () => {
  const server = await startServer({ runners: 1, args: ['--compile-thread-recycle', '5'] });
  try {
    const created = await server.request('POST', '/v1/blueprints', { body: { yaml: 'name: open\ndefault: deny\ntypecheck: off\n' } });
    assert.ok(created.status < 300, created.text);
    // Four compiles at a time from each token: replacements happen with compiles in hand.
    await Promise.all([newPrograms(server, server.userToken, 'user', 30, 4), newPrograms(server, server.adminToken, 'admin', 30, 4)]);
    // A replacement takes over once its warm-up has compiled, however long a busy machine takes,
    // while the old pool goes on: how many happened during the burst depends on the machine.
    // New programs go on, one at a time, until the threads have been replaced twice.
    let replaced = recycles((await server.request('GET', '/metrics')).text);
    for (let more = 0; replaced < 2; more++) {
      assert.ok(more < 1000, `compile threads replaced ${replaced} times after ${more} more new programs`);
      const reply = await execute(server, server.userToken, `export function main() { return "more" + ${more}; }`);
      assert.equal(reply.result, `more${more}`, JSON.stringify(reply.error));
      replaced = recycles((await server.request('GET', '/metrics')).text);
    }
    // The threads that took over compile on.
    const next = await execute(server, server.userToken, 'export function main() { return "next"; }');
    assert.equal(next.result, 'next', JSON.stringify(next.error));
    // Each replaced thread stopped its esbuild service and waited for it before it ended: no
    // service is left a zombie of the server (one per replacement, for the server's life, before).
    // A pool retired by the last compiles may be ending its services now (a service that has
    // exited is a zombie until its thread reaps it): the zombies must be gone once it has.
    let zombies = zombieChildren(server.child.pid!);
    for (let look = 0; zombies.length > 0 && look < 100; look++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      zombies = zombieChildren(server.child.pid!);
    }
    assert.deepEqual(zombies, []);
  } finally {
    await server.stop();
  }
});
