// The pool's side of CPU slots: which of its runs compute, park or wait for a slot, and
// the deliveries that wake a parked run. A reply to a parked run is held until the run
// has a slot and then carries the grant (`grant: true`), so a synchronous host call costs
// no message more than before: the call says it blocks, the reply says it may go on.
import { CpuSlots } from './cpu-slots';
import type { HostReplyMessage, ToRunner } from '../runner/protocol';

export interface GatedRun {
  tenant: string;
  runId: number;
}

interface Turn {
  state: 'computing' | 'parked' | 'waiting';
  /** The isolate waits on a synchronous call: only that reply can let it compute again. */
  blocked: boolean;
  /** Replies that arrived while the run was parked or waiting, in order. */
  held: HostReplyMessage[];
}

export class CpuGate<T extends GatedRun> {
  private readonly slots: CpuSlots<T>;
  private readonly turns = new Map<T, Turn>();

  constructor(
    slots: number,
    private readonly send: (run: T, message: ToRunner) => void,
  ) {
    this.slots = new CpuSlots<T>(slots, (run) => this.granted(run));
  }

  get computingRuns(): number {
    return this.slots.computingRuns;
  }

  get waitingRuns(): number {
    return this.slots.waitingRuns;
  }

  /** The run goes to its runner: true when it may compute at once, false when it waits for a `cpu-grant`. */
  start(run: T): boolean {
    const computing = this.slots.request(run);
    this.turns.set(run, { state: computing ? 'computing' : 'waiting', blocked: false, held: [] });
    return computing;
  }

  /** The run parked (`blocking`: on a synchronous host call; else `cpu-free`): its slot goes to the next. */
  park(run: T, blocking = false): void {
    const turn = this.turns.get(run);
    if (!turn || turn.state !== 'computing') return;
    turn.state = 'parked';
    turn.blocked = blocking;
    this.slots.release(run);
  }

  /** The run asked to compute again (`cpu-want`): a slot, now or when one frees. */
  want(run: T): void {
    const turn = this.turns.get(run);
    if (!turn || turn.state !== 'parked') return;
    turn.state = 'waiting';
    if (this.slots.request(run)) this.granted(run);
  }

  /**
   * A host reply for the run (`blocking`: it answers a synchronous call): sent at once while
   * the run computes; otherwise it waits for the run's slot and carries it. While the isolate
   * is blocked, other replies wait with no slot asked for: they could not run code anyway.
   */
  reply(run: T, message: HostReplyMessage, blocking = false): void {
    const turn = this.turns.get(run);
    if (!turn || turn.state === 'computing') {
      this.send(run, message);
      return;
    }
    if (blocking) {
      turn.blocked = false;
      turn.held.unshift(message);
    } else turn.held.push(message);
    if (turn.state === 'parked' && !turn.blocked) this.want(run);
  }

  /** The run ended: its slot or its place in the queue goes. */
  end(run: T): void {
    if (!this.turns.delete(run)) return;
    this.slots.release(run);
  }

  private granted(run: T): void {
    const turn = this.turns.get(run);
    if (!turn) return;
    turn.state = 'computing';
    const held = turn.held.splice(0);
    if (held.length === 0) {
      this.send(run, { type: 'cpu-grant', runId: run.runId });
      return;
    }
    this.send(run, { ...held[0], grant: true });
    for (const message of held.slice(1)) this.send(run, message);
  }
}
