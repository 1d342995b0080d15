/**
 * Triton's `ensemble_scheduling.max_inflight_requests`: at most that many requests in flight at
 * each step of an ensemble, across all of the ensemble's requests (0: no limit). A step's request
 * is in flight from when it is handed to its composing model until that model has answered it
 * (a decoupled one: until its final flag). Requests beyond the limit wait here, first come first
 * served, and start as earlier ones finish; a request whose ensemble request failed meanwhile
 * leaves the line (`cancel`). While a step has requests waiting, it is *backed up*: the ensemble
 * then holds back the decoupled steps that feed it (Triton blocks them), see upstream-holds.ts.
 */

/** A waiting step request's place in line: `cancel` takes it out if it has not started (true then). */
export interface GateTicket {
  cancel(): boolean;
}

interface Gate {
  inflight: number;
  waiting: Array<() => void>;
}

export class StepGates {
  private readonly gates: Gate[];

  /**
   * `onBackedUp(step, true)` when a step's first request has to wait, `(step, false)` when its
   * line is empty again.
   */
  constructor(stepCount: number, readonly limit: number, private readonly onBackedUp: (step: number, backedUp: boolean) => void = () => undefined) {
    this.gates = Array.from({ length: stepCount }, () => ({ inflight: 0, waiting: [] }));
  }

  /**
   * Runs `start` now if the step has room (and returns undefined), else when it has (and returns
   * its place in line); `start` gets the `release` it must call once, when the step's request has
   * finished (answered, failed or never sent).
   */
  enter(step: number, start: (release: () => void) => void): GateTicket | undefined {
    if (this.limit <= 0) {
      start(() => undefined);
      return undefined;
    }
    const gate = this.gates[step]!;
    let released = false;
    const run = (): void => {
      gate.inflight += 1;
      start(() => {
        if (released) return;
        released = true;
        gate.inflight -= 1;
        this.next(step, gate);
      });
    };
    if (gate.inflight < this.limit && gate.waiting.length === 0) {
      run();
      return undefined;
    }
    gate.waiting.push(run);
    if (gate.waiting.length === 1) this.onBackedUp(step, true);
    return {
      cancel: () => {
        const at = gate.waiting.indexOf(run);
        if (at < 0) return false;
        gate.waiting.splice(at, 1);
        if (gate.waiting.length === 0) this.onBackedUp(step, false);
        return true;
      },
    };
  }

  private next(step: number, gate: Gate): void {
    while (gate.inflight < this.limit && gate.waiting.length > 0) {
      const run = gate.waiting.shift()!;
      if (gate.waiting.length === 0) this.onBackedUp(step, false);
      run();
    }
  }
}

/** One ensemble request's way through the gates: what it has waiting leaves the lines should it fail. */
export class GatedSteps {
  private readonly waiting = new Set<GateTicket>();

  constructor(private readonly gates: StepGates) {}

  /** StepGates.enter for one of this request's step requests. */
  enter(step: number, start: (release: () => void) => void): void {
    // Let in at once (no ticket), or later: its ticket then leaves the waiting set.
    let ticket: GateTicket | undefined = undefined;
    ticket = this.gates.enter(step, (release) => {
      if (ticket) this.waiting.delete(ticket);
      start(release);
    });
    if (ticket) this.waiting.add(ticket);
  }

  /** The request failed: its step requests still waiting leave their lines. */
  leaveAll(): void {
    for (const ticket of this.waiting) ticket.cancel();
    this.waiting.clear();
  }
}
