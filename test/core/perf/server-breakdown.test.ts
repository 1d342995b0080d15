import { describe, expect, it } from 'vitest';
import type { ModelStatistics } from '../../../src/core/executor/types.js';
import { addDeltas, breakdown, snapshotDelta, statisticsDelta } from '../../../src/core/perf/server-breakdown.js';

function stats(requests: number, inferences: number, queueNs: number, inferNs: number, name = 'm'): ModelStatistics {
  const d = (count: number, ns: number) => ({ count, ns });
  return {
    name, version: '1', last_inference: 0, inference_count: inferences, execution_count: requests,
    inference_stats: { success: d(requests, 0), fail: d(0, 0), queue: d(requests, queueNs), compute_input: d(requests, requests * 1000), compute_infer: d(requests, inferNs), compute_output: d(requests, 0) },
    batch_stats: [],
  };
}

describe('server breakdown from statistics deltas', () => {
  it('averages each phase per request over the window, as perf_analyzer does', () => {
    const delta = statisticsDelta(stats(10, 80, 5_000, 100_000), stats(30, 240, 45_000, 500_000));
    expect(delta).toMatchObject({ requests: 20, inferenceCount: 160, executionCount: 20 });
    expect(breakdown(delta)).toEqual({ inferenceCount: 160, executionCount: 20, queueUs: 2, computeInputUs: 1, computeInferUs: 20, computeOutputUs: 0 });
  });

  it('with a response cache, as perf_analyzer: compute phases per computed request, the cache\'s times per hit and per miss', () => {
    const cached = (requests: number, hits: number, misses: number, inferNs: number): ModelStatistics => {
      const s = stats(requests - hits, requests - hits, 0, inferNs);
      return { ...s, inference_stats: { ...s.inference_stats, success: { count: requests, ns: 0 }, queue: { count: requests, ns: 0 }, cache_hit: { count: hits, ns: hits * 2_000 }, cache_miss: { count: misses, ns: misses * 3_000 } } };
    };
    // 100 requests: 80 hits, 20 misses that ran the model for 50 µs each.
    const result = breakdown(statisticsDelta(cached(0, 0, 0, 0), cached(100, 80, 20, 20 * 50_000)));
    expect(result.computeInferUs).toBe(50);
    expect(result.cache).toEqual({ hitCount: 80, missCount: 20, hitUs: 2, missUs: 3 });
    // A server or model without a cache: no cache figures.
    expect(breakdown(statisticsDelta(stats(10, 80, 5_000, 100_000), stats(30, 240, 45_000, 500_000))).cache).toBeUndefined();
  });

  it('adds windows before averaging', () => {
    const a = statisticsDelta(stats(0, 0, 0, 0), stats(10, 10, 10_000, 0));
    const b = statisticsDelta(stats(10, 10, 10_000, 0), stats(40, 40, 40_000, 0));
    expect(breakdown(addDeltas([a, b])).queueUs).toBe(1);
  });

  it('reports a phase as unknown when the server sent a wrapped 64-bit counter', () => {
    const wrapped = 18446744073709552000;
    const result = breakdown(statisticsDelta(stats(1, 1, wrapped, 10_000), stats(5, 5, wrapped, 50_000)));
    expect(result.queueUs).toBeNaN();
    expect(result.computeInferUs).toBe(10);
  });

  it("an ensemble: each composing model's own breakdown, and the ensemble's phases as their sums (perf_analyzer)", () => {
    const before = { model: stats(10, 10, 0, 0, 'ens'), composing: [stats(10, 10, 10_000, 20_000, 'pre'), stats(10, 10, 0, 0, 'cls')] };
    const after = { model: stats(20, 20, 1_000, 500_000, 'ens'), composing: [stats(20, 20, 30_000, 40_000, 'pre'), stats(20, 20, 50_000, 300_000, 'cls')] };
    const delta = snapshotDelta(before, after);
    const twice = breakdown(addDeltas([delta, delta]));
    expect(twice.composing?.map((c) => [c.name, c.queueUs, c.computeInferUs])).toEqual([['pre', 2, 2], ['cls', 5, 30]]);
    expect(twice).toMatchObject({ inferenceCount: 20, executionCount: 20, queueUs: 7, computeInputUs: 2, computeInferUs: 32 });
  });
});
