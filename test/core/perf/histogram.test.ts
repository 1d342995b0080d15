import { describe, expect, it } from 'vitest';
import { aggregateHistograms, createLatencyHistogram, decodeHistogram, encodeHistogram, recordLatency, summarizeLatency } from '../../../src/core/perf/histogram.js';

describe('latency histograms', () => {
  it('merges per-worker histograms into the same distribution one histogram would hold', () => {
    const single = createLatencyHistogram();
    const parts = [createLatencyHistogram(), createLatencyHistogram(), createLatencyHistogram()];
    let sum = 0;
    for (let i = 1; i <= 3000; i++) {
      sum += recordLatency(single, i * 7);
      recordLatency(parts[i % 3]!, i * 7);
    }
    const merged = summarizeLatency(aggregateHistograms(parts), sum);
    expect(merged).toEqual(summarizeLatency(single, sum));
    expect(merged.count).toBe(3000);
    expect(merged.avgUs).toBe(7 * 3001 / 2);
    // 3 significant digits: p50 of 7..21000 is 10500 within 0.1%.
    expect(Math.abs(merged.p50Us - 10500) / 10500).toBeLessThan(0.001);
  });

  it('survives the compressed round trip between threads', () => {
    const h = createLatencyHistogram();
    for (const v of [5, 50, 500, 5000, 50_000]) recordLatency(h, v);
    const back = decodeHistogram(encodeHistogram(h));
    expect(summarizeLatency(back, 55_555)).toEqual(summarizeLatency(h, 55_555));
  });

  it('clamps a zero reading to 1 µs and a hung request to the range top', () => {
    const h = createLatencyHistogram();
    expect(recordLatency(h, 0)).toBe(1);
    expect(recordLatency(h, 1e12)).toBe(600_000_000);
    expect(h.minNonZeroValue).toBe(1);
  });

  it('reports the value at --percentile', () => {
    const h = createLatencyHistogram();
    for (let i = 1; i <= 100; i++) recordLatency(h, i * 1000);
    expect(summarizeLatency(h, 5_050_000, 95).percentileUs).toBeCloseTo(95_000, -2);
  });
});
