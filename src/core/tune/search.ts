/**
 * The two searches. Quick (model_analyzer's idea): start at the smallest point, measure one step
 * up every dimension, move to the best neighbour while it beats the current point, stop when
 * none does or the trial limit is reached. Exhaustive: every point. Both measure through
 * `measure`, which answers from the checkpoint when the trial is already there.
 */
import { candidateAt, allPoints, growNeighbours, type Point, type SearchSpace } from './space.js';
import type { Candidate } from './candidate.js';
import { compareTrials, type Constraints, type Objective } from './objective.js';
import { measured, type Trial } from './trial.js';

export interface SearchOptions {
  exhaustive: boolean;
  /** Most trials to run (the baseline included). */
  trialLimit: number;
  constraints: Constraints;
  objective: Objective;
}

export type MeasureFn = (candidate: Candidate) => Promise<Trial>;

/** a is better than b (unmeasured trials are worse than any measured one). */
function better(a: Trial, b: Trial, o: SearchOptions): boolean {
  if (!measured(a)) return false;
  if (!measured(b)) return true;
  return compareTrials(a, b, o.constraints, o.objective) < 0;
}

export async function search(space: SearchSpace, measure: MeasureFn, o: SearchOptions, alreadyRun: () => number): Promise<void> {
  const room = () => alreadyRun() < o.trialLimit;
  if (o.exhaustive) {
    for (const p of allPoints(space)) {
      if (!room()) return;
      await measure(candidateAt(space, p));
    }
    return;
  }
  let point: Point = { instances: 0, batching: 0, delay: 0, concurrency: 0 };
  let current = await measure(candidateAt(space, point));
  for (;;) {
    let bestPoint: Point | undefined;
    let best: Trial | undefined;
    for (const next of growNeighbours(space, point)) {
      if (!room()) break;
      const trial = await measure(candidateAt(space, next));
      if (!best || better(trial, best, o)) {
        best = trial;
        bestPoint = next;
      }
    }
    if (!best || !bestPoint || !better(best, current, o)) return;
    point = bestPoint;
    current = best;
  }
}
