// A run ends at its limits wherever its time goes, not only in its own (fuel-counted) code:
// in a built-in, in trusted prelude or standard-library code the program drives, in a lazy
// global's first load, in promise jobs, in getters and Proxy traps trusted code reads, and
// while its result or console line is encoded. Each hostile program below spends its time
// where no fuel is counted (a bound built-in that never returns stands in for a callback,
// so not one unit is charged), and would run for ever under the default max_execution_time
// (0); each must end at the CPU time its fuel buys, as fuel_exhausted naming
// max_execution_fuel, while another token's run on the same runner gets its right answer.
// A per-test timeout only turns a hang (the unfixed runtime) into a failure.
import { test, describe, after, before } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { runServerBinary, tempDir, type TestServer } from '../harness';
import { startWithOther } from '../support/tenants';
import { GATED_BLUEPRINT } from '../support/approvals';
import { eventually } from '../support/wait';

/** A built-in that never returns (2^53 - 1 indices to search): charges no fuel, however long it runs. */
const SPIN = 'Array.prototype.indexOf.bind({ length: 2 ** 53 - 1 }, 1)';
/** A built-in `next` that answers the same unfinished step for ever. */
const ENDLESS_NEXT = (value: string) => `Reflect.get.bind(null, { step: { done: false, value: ${value} } }, 'step')`;
/** A thenable whose `then` resolves with the thenable itself, scheduling a new promise job each time: a built-in does it. */
const SELF_THENABLE = 'const t: any = {}; t.then = Array.prototype.forEach.bind([t]);';
/** An array-like of 2^53 - 1 elements, every one present, built of built-in traps (no fuel to read it). */
const ENDLESS_ARRAY_LIKE = "new Proxy({}, { has: Reflect.has.bind(null, [0], 0) as any, get: Reflect.get.bind(null, { v: 2 ** 53 - 1 }, 'v') as any })";
/** An object whose one enumerable property's getter is SPIN. */
const SPINNING_GETTER = `const o = {}; Object.defineProperty(o, 'x', { enumerable: true, get: ${SPIN} as any });`;

const VICTIM = 'export function main() { let s = 0; for (let i = 0; i < 1000; i++) s += i; return { s, text: new TextDecoder().decode(new TextEncoder().encode("ok")) }; }';
const VICTIM_RESULT = '{"s":499500,"text":"ok"}';
const FUEL = 1_000_000;
const FUEL_CPU = /^fuel exhausted: the run used 0.25 s of CPU time, all that its budget of 1000000 fuel buys \(max_execution_fuel; 10 ns a unit, at least 0.25 s\), counting time in built-ins and the runtime's own code/;
const HANG_GUARD = { timeout: 120_000 };

// The tests on the file's shared server (one runner, the attack beside the victim) stay in
// order; the three with a server or process of their own (a CPU ceiling, a refused setting,
// a time limit beside an approval) run at once beside them: about 12 s of the file's 51 s
// alone, mostly waiting on their own runners.
describe('limits wherever the time goes', { concurrency: true }, () => {
  describe('on one runner beside another token', () => {
    let server: TestServer;
    let other: string;
    before(async () => {
      ({ server, other } = await startWithOther({ args: ['--max-execution-fuel', String(FUEL)] }));
      const created = await server.request('POST', '/v1/blueprints', { body: { yaml: 'name: loops\ndefault: allow\ntypecheck: off\n' } });
      assert.ok(created.status < 300, created.text);
    });
    after(() => server?.stop());

    async function run(token: string, code: string, blueprint = 'loops') {
      const reply = await server.request('POST', '/v1/execute', { token, body: { blueprint, code } });
      assert.equal(reply.status, 200, reply.text);
      return reply.json;
    }

    /**
     * The hostile program (harness token) and the victim (the other token) at once, on the one
     * runner. `orMemory`: the loop also grows what it fills (a Headers list), so whichever limit
     * it reaches first ends it, CPU time or memory; both are limits of its own.
     */
    async function endsByCpuBesideVictim(hostile: string, orMemory = false): Promise<void> {
      const [attack, victim] = await Promise.all([run(server.userToken, hostile), run(other, VICTIM)]);
      const kind = orMemory && attack.error?.kind === 'memory_exhausted' ? 'memory_exhausted' : 'fuel_exhausted';
      assert.equal(attack.error?.kind, kind, JSON.stringify(attack));
      assert.match(attack.error.message, kind === 'fuel_exhausted' ? FUEL_CPU : /^memory exhausted: .*\(max_execution_memory\)/);
      assert.equal(victim.error, null, JSON.stringify(victim));
      assert.equal(victim.result, VICTIM_RESULT);
      const record = server.audit({ type: 'execution', event: 'finished', execution_id: attack.execution_id })[0];
      assert.equal(record.outcome, kind);
      // The next run of the attacking token works.
      assert.equal((await run(server.userToken, VICTIM)).result, VICTIM_RESULT);
    }

    test('a built-in looping inside program code (no fuel is charged while it runs)', HANG_GUARD, async () => {
      await endsByCpuBesideVictim(`export function main() { return ${SPIN}(); }`);
    });

    test('trusted prelude code iterating a program iterable whose next is a built-in (Headers, URLSearchParams)', HANG_GUARD, async () => {
      const iterable = `{ [Symbol.iterator]() { return { next: ${ENDLESS_NEXT("['a', 'b']")} }; } }`;
      await endsByCpuBesideVictim(`export function main() { new Headers(${iterable} as any); return 1; }`, true);
      await endsByCpuBesideVictim(`export function main() { new URLSearchParams(${iterable} as any); return 1; }`, true);
    });

    test("a lazy global's first load after the program replaced a built-in it uses (the encoding classes, core-js)", HANG_GUARD, async () => {
      await endsByCpuBesideVictim(`export function main() { Object.defineProperty = ${SPIN} as any; new TextDecoder(); return 1; }`);
      await endsByCpuBesideVictim(`export function main() { Object.defineProperty = ${SPIN} as any; (Object as any).groupBy([1], (x: number) => x); return 1; }`);
    });

    test('a promise-job loop: a thenable that resolves with itself, awaited by the program', HANG_GUARD, async () => {
      await endsByCpuBesideVictim(`export async function main() { ${SELF_THENABLE} await t; return 1; }`);
    });

    test('a getter and a Proxy trap run by trusted code (structuredClone)', HANG_GUARD, async () => {
      await endsByCpuBesideVictim(`export function main() { ${SPINNING_GETTER} structuredClone(o); return 1; }`);
      await endsByCpuBesideVictim(`export function main() { structuredClone(new Proxy({}, { ownKeys: ${SPIN} as any })); return 1; }`);
    });

    test("host-callback re-entry: svc:session's guest side reads a value's getter before its host call", HANG_GUARD, async () => {
      await endsByCpuBesideVictim(`import { set } from 'svc:session';\nexport function main() { ${SPINNING_GETTER} set('k', o); return 1; }`);
    });

    test('a thenable the runtime awaits: main returns it', HANG_GUARD, async () => {
      await endsByCpuBesideVictim(`export function main() { ${SELF_THENABLE} return t; }`);
    });

    test('an async iterator whose next is a built-in, consumed by Array.fromAsync', HANG_GUARD, async () => {
      await endsByCpuBesideVictim(`export async function main() { const it = { [Symbol.asyncIterator]() { return { next: ${ENDLESS_NEXT('1')} }; } }; await (Array as any).fromAsync(it); return 1; }`);
    });

    test("the result's encoding: a getter and a toJSON that never return", HANG_GUARD, async () => {
      await endsByCpuBesideVictim(`export function main() { ${SPINNING_GETTER} return o; }`);
      await endsByCpuBesideVictim(`export function main() { return { toJSON: ${SPIN} }; }`);
    });

    test('console formatting of hostile objects: a getter and a Proxy trap', HANG_GUARD, async () => {
      await endsByCpuBesideVictim(`export function main() { ${SPINNING_GETTER} console.log(o); return 1; }`);
      await endsByCpuBesideVictim(`export function main() { console.log(new Proxy({}, { ownKeys: ${SPIN} as any })); return 1; }`);
    });

    test("the runtime's native callbacks called in a built-in's loop (URL parsing, console lines): their time on the runner's thread counts", HANG_GUARD, async () => {
      await endsByCpuBesideVictim(`export function main() { Array.prototype.forEach.call(${ENDLESS_ARRAY_LIKE}, URL.canParse); return 1; }`);
      await endsByCpuBesideVictim(`export function main() { Array.prototype.forEach.call(${ENDLESS_ARRAY_LIKE}, console.log); return 1; }`);
    });
  });

  test('max_execution_cpu: the server-wide ceiling ends a run whose fuel would buy more, as timeout naming the setting', HANG_GUARD, async () => {
    const { server: capped, other: cappedOther } = await startWithOther({ args: ['--max-execution-cpu', '1'] });
    try {
      const created = await capped.request('POST', '/v1/blueprints', { body: { yaml: 'name: loops\ntypecheck: off\n' } });
      assert.ok(created.status < 300, created.text);
      const execute = async (token: string, code: string) => (await capped.request('POST', '/v1/execute', { token, body: { blueprint: 'loops', code } })).json;
      const [attack, victim] = await Promise.all([execute(capped.userToken, `export function main() { return ${SPIN}(); }`), execute(cappedOther, VICTIM)]);
      assert.equal(attack.error?.kind, 'timeout', JSON.stringify(attack));
      assert.match(attack.error.message, /^timeout exceeded: the run used 1 s of CPU time, the server's ceiling for one run \(max_execution_cpu\)/);
      assert.equal(victim.result, VICTIM_RESULT);
      // Program code under the default fuel meets the same ceiling.
      const loop = await execute(capped.userToken, 'export function main() { for (;;) {} }');
      assert.equal(loop.error?.kind, 'timeout');
      assert.match(loop.error.message, /max_execution_cpu/);
    } finally {
      await capped.stop();
    }
  });

  test('max_execution_cpu refuses a value that is not a whole number of seconds, naming the setting', async () => {
    const failed = await runServerBinary(['--max-execution-cpu', 'soon'], {}, tempDir());
    assert.notEqual(failed.code, 0);
    assert.match(failed.stderr, /--max-execution-cpu: expected a whole number of seconds, got `soon`/);
  });

  test('max_execution_time keeps counting while the run computes beside a call that waits for a person', HANG_GUARD, async () => {
    // The far end holds the program's GET until the test has seen the approval pending, so the
    // loop starts only once the run's clock has stopped for the person.
    let release: (() => void) | null = null;
    const far = http.createServer((req, res) => {
      if (req.url === '/hold') release = () => res.end('go');
      else res.end('ok');
    });
    await new Promise<void>((resolve) => far.listen(0, '127.0.0.1', resolve));
    const port = (far.address() as AddressInfo).port;
    const { server: timed, other: timedOther } = await startWithOther({ args: ['--allow-localhost', '--max-execution-time', '2'] });
    try {
      const created = await timed.request('POST', '/v1/blueprints', { body: { yaml: GATED_BLUEPRINT } });
      assert.ok(created.status < 300, created.text);
      const code = `export async function main() {
        fetch("http://127.0.0.1:${port}/gated", { method: "POST", body: "x" }).catch(() => 0);
        await (await fetch("http://127.0.0.1:${port}/hold")).text();
        for (;;) {}
      }`;
      const attack = timed.request('POST', '/v1/execute', { token: timed.userToken, body: { blueprint: 'gated', code } });
      await eventually('the approval pending', async () => ((await timed.request('GET', '/v1/approvals')).json.approvals as unknown[]).length > 0);
      await eventually('the held request', () => release !== null);
      release!();
      const victim = timed.request('POST', '/v1/execute', { token: timedOther, body: { blueprint: 'gated', code: VICTIM } });
      const [ended, answered] = await Promise.all([attack, victim]);
      assert.equal(ended.json.error?.kind, 'timeout', ended.text);
      assert.match(ended.json.error.message, /^timeout exceeded: the run passed its time limit of 2 s \(max_execution_time\)/);
      assert.equal(answered.json.result, VICTIM_RESULT);
    } finally {
      far.closeAllConnections();
      far.close();
      await timed.stop();
    }
  });
});
