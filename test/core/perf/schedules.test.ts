import { describe, expect, it } from 'vitest';
import { intervalSchedule, rateSchedule, type SendSchedule } from '../../../src/core/perf/schedules.js';

/** The first n send times (ms from the driver's start) a schedule makes. */
function sendTimes(schedule: SendSchedule, n: number): number[] {
  const times = [schedule.firstMs];
  while (times.length < n) times.push(times.at(-1)! + schedule.nextGapMs());
  return times;
}

describe('intervalSchedule (--request-intervals)', () => {
  it("sends request i at the sum of the first i + 1 intervals, cycling the list, as perf_analyzer's custom intervals", () => {
    expect(sendTimes(intervalSchedule([1000, 2000, 3000]), 7)).toEqual([1, 3, 6, 7, 9, 12, 13]);
  });

  it('deals the schedule out request by request: the drivers together send at the same times', () => {
    const intervals = [1000, 2000, 3000, 0, 5000];
    const whole = sendTimes(intervalSchedule(intervals), 12);
    const shares = [0, 1, 2].map((index) => sendTimes(intervalSchedule(intervals, { index, of: 3 }), 4));
    expect(shares[0]).toEqual([whole[0], whole[3], whole[6], whole[9]]);
    expect(shares[1]).toEqual([whole[1], whole[4], whole[7], whole[10]]);
    expect(shares[2]).toEqual([whole[2], whole[5], whole[8], whole[11]]);
    expect(shares.flat().sort((a, b) => a - b)).toEqual(whole);
  });

  it('keeps a zero interval as two sends at the same time', () => {
    expect(sendTimes(intervalSchedule([0, 500]), 5)).toEqual([0, 0.5, 0.5, 1, 1]);
  });
});

describe('rateSchedule (--request-rate-range)', () => {
  it('starts at once and spaces a constant rate evenly', () => {
    expect(sendTimes(rateSchedule(200, 'constant'), 4)).toEqual([0, 5, 10, 15]);
  });

  it('draws positive exponential gaps for poisson', () => {
    const schedule = rateSchedule(1000, 'poisson');
    const gaps = Array.from({ length: 200 }, () => schedule.nextGapMs());
    expect(gaps.every((g) => g >= 0 && Number.isFinite(g))).toBe(true);
    expect(new Set(gaps).size).toBeGreaterThan(1);
  });
});
