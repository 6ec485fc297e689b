// "A held, B answers": token A's runs fan out fetches to a far end that holds every one of
// them, and token B's runs answer, right, while all of A's requests wait there. Shown by
// counts at the far end, never by clocks: B runs only once the far end holds every request
// of A's, and A's runs must not have answered by then; the far end then drops A's
// connections and each of A's fetches fails, as each A run reports.
import assert from 'node:assert/strict';
import type { FarEndTenants } from './tenants';

/** Requests a far end holds without answering, counted; `allHeld` resolves once `expected` are held. */
export class HeldRequests {
  private held = 0;
  private resolveAll: () => void = () => {};
  readonly allHeld = new Promise<void>((resolve) => (this.resolveAll = resolve));

  constructor(readonly expected: number) {}

  /** Called by the far end for a request it never answers (its connection stays open until dropped). */
  hold(): void {
    if (++this.held === this.expected) this.resolveAll();
  }
}

export interface HeldFanout {
  /** A's runs, each fanning out `fanout` fetches of `heldUrl` + an index. */
  runs: number;
  fanout: number;
  /** Where A's fetches go: the far end holds them (possibly after redirects). */
  heldUrl: string;
  /** B's program and its result; it runs three times while A's requests are held. */
  bProgram: string;
  bResult: string;
}

/** A program that fans out `fanout` fetches and answers how many of them failed. */
const fanoutProgram = (fanout: number, url: string) =>
  `export async function main() { const all = await Promise.allSettled(Array.from({ length: ${fanout} }, (_, i) => fetch("${url}" + i))); return all.filter((a) => a.status === "rejected").length; }`;

/** Runs the scenario on `tenants` (A: the harness user token, B: `other`); `held` must expect runs x fanout requests. */
export async function aHeldWhileBAnswers(tenants: FarEndTenants, held: HeldRequests, scenario: HeldFanout): Promise<void> {
  assert.equal(held.expected, scenario.runs * scenario.fanout, 'the far end expects every one of A\'s requests');
  const { server, other } = tenants;
  const fanouts = Array.from({ length: scenario.runs }, () => tenants.execute(server.userToken, fanoutProgram(scenario.fanout, scenario.heldUrl)));
  let fanoutsAnswered = 0;
  for (const run of fanouts) void run.then(() => fanoutsAnswered++);
  await Promise.race([held.allHeld, Promise.all(fanouts).then((replies) => assert.fail(`A's runs answered early: ${replies.map((r) => r.text.slice(0, 200)).join('; ')}`))]);

  for (let i = 0; i < 3; i++) {
    const b = await tenants.execute(other, scenario.bProgram);
    assert.equal(b.json?.error, null, b.text);
    assert.equal(b.json.result, scenario.bResult);
  }
  assert.equal((await server.request('GET', '/healthz')).status, 200);
  assert.equal(fanoutsAnswered, 0, 'every A request still waits at the far end');

  // The far end drops A's connections: each of A's fetches fails, and each run says so.
  tenants.dropConnections();
  for (const reply of await Promise.all(fanouts)) {
    assert.equal(reply.json?.error, null, reply.text);
    assert.equal(reply.json.result, String(scenario.fanout));
  }
}
