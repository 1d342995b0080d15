/**
 * What makes a trial good: constraints (--latency-budget p99=5ms, --min-throughput) and an
 * objective (throughput, latency, or a weighted mix). A trial that meets every constraint beats
 * one that does not; among those that miss, the closest is the one with the smallest overshoot.
 */
export type LatencyMetric = 'avg' | 'p50' | 'p90' | 'p95' | 'p99';

export interface TrialFigures {
  throughput: number;
  latencyUs: Record<LatencyMetric, number>;
}

export interface Constraints {
  latencyBudgets: Array<{ metric: LatencyMetric; us: number }>;
  minThroughput?: number;
}

export type Objective =
  | { kind: 'throughput' }
  | { kind: 'latency' }
  /** score = wT·log(throughput) − wL·log(p99): scale-free, so the weights mean what they say. */
  | { kind: 'weighted'; throughputWeight: number; latencyWeight: number };

/** How far a trial misses its constraints: 0 when it meets them, else the largest relative overshoot. */
export function violation(t: TrialFigures, c: Constraints): number {
  let worst = 0;
  for (const b of c.latencyBudgets) worst = Math.max(worst, t.latencyUs[b.metric] / b.us - 1);
  if (c.minThroughput !== undefined) worst = Math.max(worst, t.throughput > 0 ? c.minThroughput / t.throughput - 1 : Infinity);
  return worst;
}

/** Higher is better. */
export function score(t: TrialFigures, o: Objective): number {
  switch (o.kind) {
    case 'throughput': return t.throughput;
    case 'latency': return -t.latencyUs.p99;
    case 'weighted': return o.throughputWeight * Math.log(Math.max(t.throughput, 1e-9)) - o.latencyWeight * Math.log(Math.max(t.latencyUs.p99, 1e-3));
  }
}

/** Orders trials best first: feasible before infeasible; feasible by score, infeasible by overshoot. */
export function compareTrials(a: TrialFigures, b: TrialFigures, c: Constraints, o: Objective): number {
  const va = violation(a, c);
  const vb = violation(b, c);
  if ((va === 0) !== (vb === 0)) return va === 0 ? -1 : 1;
  if (va > 0) return va - vb;
  return score(b, o) - score(a, o);
}

/** Throughput up, p99 down: the trials no other trial beats on both. */
export function paretoFront<T extends TrialFigures>(trials: readonly T[]): T[] {
  return trials
    .filter((t) => !trials.some((u) => u !== t && u.throughput >= t.throughput && u.latencyUs.p99 <= t.latencyUs.p99 && (u.throughput > t.throughput || u.latencyUs.p99 < t.latencyUs.p99)))
    .sort((a, b) => a.throughput - b.throughput);
}
