import { describe, expect, it } from 'vitest';
import { candidateKey, type Candidate } from '../../../src/core/tune/candidate.js';
import { compareTrials, paretoFront, violation, type Constraints } from '../../../src/core/tune/objective.js';
import { search } from '../../../src/core/tune/search.js';
import { allPoints, buildSpace } from '../../../src/core/tune/space.js';
import type { Trial } from '../../../src/core/tune/trial.js';

const lat = (p99: number) => ({ avg: p99 / 2, p50: p99 / 2, p90: p99, p95: p99, p99 });
const none: Constraints = { latencyBudgets: [] };

/** A model whose throughput grows with instances up to 3 and with batching; latency grows with concurrency. */
function fakeMeasure(seen: string[]) {
  return async (c: Candidate): Promise<Trial> => {
    seen.push(candidateKey(c));
    const throughput = Math.min(c.instanceCount, 3) * 100 * (c.batching ? 1.5 : 1) * Math.min(c.concurrency, 4);
    return { key: candidateKey(c), candidate: c, throughput, latencyUs: lat(1000 * c.concurrency), windows: 3 };
  };
}

describe('the search space', () => {
  it('offers gears as preferred sizes when the engine has them, powers of two otherwise', () => {
    const om = buildSpace({ maxBatchSize: 8, gears: [1, 2, 4, 8], maxInstanceCount: 2, delaysUs: [0, 100], concurrencies: [1] });
    expect(om.batchings).toEqual([undefined, [], [4, 8], [8]]);
    const onnx = buildSpace({ maxBatchSize: 16, gears: [], maxInstanceCount: 1, delaysUs: [0], concurrencies: [1, 2] });
    expect(onnx.batchings).toEqual([undefined, [], [8, 16], [16]]);
    const unbatched = buildSpace({ maxBatchSize: 0, gears: [], maxInstanceCount: 3, delaysUs: [0, 100], concurrencies: [1] });
    expect(allPoints(unbatched)).toHaveLength(3);
    // Delays only vary with batching on: 2 instances × (1 + 3 × 2) × 1 concurrency.
    expect(allPoints(om)).toHaveLength(14);
  });
});

describe('quick search', () => {
  it('climbs from the smallest point while a step helps, and stops at the top', async () => {
    const space = buildSpace({ maxBatchSize: 8, gears: [], maxInstanceCount: 5, delaysUs: [0], concurrencies: [1, 2, 4, 8] });
    const seen: string[] = [];
    await search(space, fakeMeasure(seen), { exhaustive: false, trialLimit: 100, constraints: none, objective: { kind: 'throughput' } }, () => new Set(seen).size);
    expect(seen[0]).toBe('i1/no-db/c1');
    expect(seen).toContain('i3/db[]@0us/c4');
    // Fewer trials than brute force: 5 × 4 × 4 = 80 points.
    expect(new Set(seen).size).toBeLessThan(40);
    expect(seen).not.toContain('i5/no-db/c8');
  });

  it('respects the trial limit, and exhaustive search measures every point', async () => {
    const space = buildSpace({ maxBatchSize: 8, gears: [], maxInstanceCount: 2, delaysUs: [0, 100], concurrencies: [1, 2] });
    const seen: string[] = [];
    await search(space, fakeMeasure(seen), { exhaustive: false, trialLimit: 3, constraints: none, objective: { kind: 'throughput' } }, () => new Set(seen).size);
    expect(new Set(seen).size).toBe(3);
    const all: string[] = [];
    await search(space, fakeMeasure(all), { exhaustive: true, trialLimit: 1000, constraints: none, objective: { kind: 'throughput' } }, () => new Set(all).size);
    expect(all).toHaveLength(allPoints(space).length);
  });
});

describe('constraints, objectives and the Pareto front', () => {
  const t = (throughput: number, p99: number) => ({ throughput, latencyUs: lat(p99) });
  it('puts trials inside the budget first, the closest miss first among the rest', () => {
    const c: Constraints = { latencyBudgets: [{ metric: 'p99', us: 5000 }], minThroughput: 100 };
    expect(violation(t(200, 4000), c)).toBe(0);
    expect(violation(t(200, 10_000), c)).toBe(1);
    expect(violation(t(50, 1000), c)).toBe(1);
    const sorted = [t(900, 20_000), t(150, 4000), t(300, 6000), t(120, 1000)].sort((a, b) => compareTrials(a, b, c, { kind: 'throughput' }));
    expect(sorted.map((x) => x.throughput)).toEqual([150, 120, 300, 900]);
  });

  it('ranks by p99 for the latency objective and by log-weights for weighted', () => {
    const a = t(1000, 2000);
    const b = t(600, 1000);
    expect(compareTrials(a, b, none, { kind: 'latency' })).toBeGreaterThan(0);
    expect(compareTrials(a, b, none, { kind: 'weighted', throughputWeight: 1, latencyWeight: 1 })).toBeGreaterThan(0);
    expect(compareTrials(a, b, none, { kind: 'weighted', throughputWeight: 3, latencyWeight: 1 })).toBeLessThan(0);
  });

  it('keeps only the trials no other beats on both throughput and p99', () => {
    const trials = [t(100, 1000), t(200, 2000), t(150, 3000), t(300, 2500), t(300, 5000)];
    expect(paretoFront(trials).map((x) => [x.throughput, x.latencyUs.p99])).toEqual([[100, 1000], [200, 2000], [300, 2500]]);
  });
});
