/** The tune report as plain data: what --json prints and the table and HTML are built from. */
import type { Constraints, Objective } from './objective.js';
import type { Trial } from './trial.js';

export interface TuneReport {
  model: { name: string; version: string };
  target: string;
  search: 'quick' | 'exhaustive';
  constraints: Constraints;
  objective: Objective;
  /** The config as written, measured at each concurrency: what the winner is compared with. */
  baseline: Trial[];
  /** Every trial, in the order measured (resumed ones included). */
  trials: Trial[];
  /** Trials read back from the checkpoint instead of measured in this run. */
  resumed: number;
  /** Keys of the trials on the throughput / p99 Pareto front. */
  pareto: string[];
  /** The best trial that meets every constraint; absent when none does. */
  winner?: Trial;
  /** When nothing qualifies: the trial that came closest. */
  closest?: Trial;
  /** The winner's throughput over the baseline's at the same concurrency. */
  speedup?: number;
  /** Set by --write: the config file that now holds the winner's settings. */
  written?: string;
}

export function describeConstraints(c: Constraints): string {
  const parts = c.latencyBudgets.map((b) => `${b.metric} ≤ ${+(b.us / 1000).toFixed(3)} ms`);
  if (c.minThroughput !== undefined) parts.push(`throughput ≥ ${c.minThroughput} infer/s`);
  return parts.length ? parts.join(', ') : 'none';
}

export function describeObjective(o: Objective): string {
  return o.kind === 'weighted' ? `weighted (throughput ${o.throughputWeight}, p99 latency ${o.latencyWeight})` : o.kind === 'latency' ? 'lowest p99 latency' : 'highest throughput';
}
