import { describe, expect, it } from 'vitest';
import { compareOutput, judgeOutput } from '../../../src/core/compare/metrics.js';

const pair = (actual: number[], expected: number[], shape = [actual.length], sample = 's') => ({ sample, shape, actual: Float64Array.from(actual), expected: Float64Array.from(expected) });
const tol = { atol: 1e-5, rtol: 1e-3 };

describe('compareOutput', () => {
  it('is all zeros and cosine 1 for identical outputs', () => {
    const m = compareOutput([pair([1, -2, 3], [1, -2, 3])], tol);
    expect(m).toMatchObject({ elements: 3, maxAbsError: 0, meanAbsError: 0, maxRelError: 0, cosineSimilarity: 1, rmse: 0, outsideShare: 0, worst: [] });
    expect(m.histogram.counts[0]).toBe(3);
  });

  it("computes msit's metrics and numpy.allclose's outside share", () => {
    // errors 0, 0.5, 0.001 against 1, 2, 4
    const m = compareOutput([pair([1, 2.5, 4.001], [1, 2, 4])], tol);
    expect(m.maxAbsError).toBeCloseTo(0.5, 12);
    expect(m.meanAbsError).toBeCloseTo(0.501 / 3, 12);
    expect(m.maxRelError).toBeCloseTo(0.25, 12);
    expect(m.rmse).toBeCloseTo(Math.sqrt((0.25 + 1e-6) / 3), 9);
    const dot = 1 + 5 + 4 * 4.001;
    expect(m.cosineSimilarity).toBeCloseTo(dot / Math.sqrt((1 + 6.25 + 4.001 ** 2) * 21), 12);
    // 0.001 <= 1e-5 + 1e-3 * 4 is inside; 0.5 is outside.
    expect(m.outsideCount).toBe(1);
    expect(m.outsideShare).toBeCloseTo(1 / 3, 12);
    expect(judgeOutput(m, { ...tol, maxOutsideShare: 0 }).reasons[0]).toBe('1 of 3 elements (33.3%) are outside atol 0.00001 + rtol 0.001·|expected|');
    expect(judgeOutput(m, { ...tol, maxOutsideShare: 0.5 }).pass).toBe(true);
  });

  it('names the worst elements with sample and coordinates, largest first', () => {
    const m = compareOutput([pair([0, 0, 0, 0, 0, 9], [0, 0, 0, 0, 0, 0], [2, 3], 'a'), pair([0, 3, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0], [2, 3], 'b')], tol, 2);
    expect(m.worst.map((w) => [w.sample, w.coords, w.absError])).toEqual([['a', [1, 2], 9], ['b', [0, 1], 3]]);
  });

  it('counts NaN against a number as outside with infinite error, and NaN against NaN as equal', () => {
    const m = compareOutput([pair([Number.NaN, Number.NaN, 1], [1, Number.NaN, 1])], tol);
    expect(m.outsideCount).toBe(1);
    expect(m.maxAbsError).toBe(Infinity);
    expect(m.worst[0]!.index).toBe(0);
  });

  it('fails on cosine similarity only when asked', () => {
    const m = compareOutput([pair([1, 0], [0, 1])], { atol: 10, rtol: 0 });
    expect(m.cosineSimilarity).toBe(0);
    expect(judgeOutput(m, { atol: 10, rtol: 0, maxOutsideShare: 0 }).pass).toBe(true);
    expect(judgeOutput(m, { atol: 10, rtol: 0, maxOutsideShare: 0, minCosine: 0.99 }).reasons).toEqual(['cosine similarity 0.00000 is below 0.99']);
  });
});
