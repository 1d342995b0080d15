import { describe, expect, it } from 'vitest';
import { judgeStability } from '../../../src/core/perf/stability.js';

const w = (throughput: number, latencyUs: number) => ({ throughput, latencyUs });

describe('judgeStability (perf_analyzer rule)', () => {
  it('needs three windows', () => {
    expect(judgeStability([w(100, 10), w(100, 10)], 10).stable).toBe(false);
  });

  it('is stable when throughput and latency of the last three are within 1 + s/100', () => {
    const verdict = judgeStability([w(10, 99), w(100, 10), w(105, 10.5), w(110, 11)], 10);
    expect(verdict.stable).toBe(true);
    expect(verdict.throughputSpreadPct).toBeCloseTo(10, 6);
  });

  it('is unstable when throughput varies more than s%', () => {
    expect(judgeStability([w(100, 10), w(100, 10), w(111, 10)], 10).stable).toBe(false);
  });

  it('is unstable when latency varies more than s% even if throughput is flat', () => {
    const verdict = judgeStability([w(100, 10), w(100, 10), w(100, 12)], 10);
    expect(verdict.stable).toBe(false);
    expect(verdict.latencySpreadPct).toBeCloseTo(20, 6);
  });

  it('is unstable when a window completed nothing', () => {
    const verdict = judgeStability([w(0, 0), w(0, 0), w(0, 0)], 10);
    expect(verdict.stable).toBe(false);
    expect(verdict.throughputSpreadPct).toBe(Number.POSITIVE_INFINITY);
  });
});
