/**
 * FirstResponseHistogram: observations counted into the first bucket at or above them, cumulative
 * as Prometheus writes buckets, and `timed` observing only a request's first response that carries
 * outputs or an error (a final flag alone is no response).
 */
import { describe, expect, it } from 'vitest';
import { FirstResponseHistogram } from '../../../src/core/executor/first-response-histogram.js';
import { InferError, type DecoupledResponse } from '../../../src/core/executor/types.js';

describe('FirstResponseHistogram', () => {
  it('counts into the first bucket at or above each observation, cumulatively', () => {
    const h = new FirstResponseHistogram([1, 10, 100]);
    for (const ms of [0.5, 1, 5, 10, 50, 1000]) h.observe(ms);
    expect(h.read()).toEqual({ bucketsMs: [1, 10, 100], cumulative: [2, 4, 5], sumMs: 1066.5, count: 6 });
  });

  it('times the first response of a request, not the later ones nor a lone final flag', () => {
    const h = new FirstResponseHistogram([1e9]);
    const seen: DecoupledResponse[] = [];
    const finalOnly = h.timed<DecoupledResponse>((r) => seen.push(r));
    finalOnly({ final: true });
    expect(h.read().count).toBe(0);
    const on = h.timed<DecoupledResponse>((r) => seen.push(r));
    on({ final: true });
    on({ error: new InferError('bad'), final: false });
    on({ response: { modelName: 'm', modelVersion: '1', outputs: [] }, final: false });
    expect(h.read().count).toBe(1);
    expect(seen).toHaveLength(4);
  });
});
