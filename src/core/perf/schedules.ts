/**
 * When an open-loop driver sends its requests (perf_analyzer's request-rate and custom-interval
 * modes): the delay before its first request and the gap before each next one, in ms. Pure (no
 * clock), so the exact sequence is tested on its own; the driver adds the gaps to its start time.
 */

export interface SendSchedule {
  /** From the driver's start to its first request. */
  readonly firstMs: number;
  /** The gap after the request last scheduled to the next one. */
  nextGapMs(): number;
}

/** One driver's part of a schedule shared by `of` drivers: it sends requests index, index + of, … */
export interface ScheduleShare {
  index: number;
  of: number;
}

/** --request-rate-range: evenly spaced, or with exponential gaps (a Poisson process), from the start. */
export function rateSchedule(requestsPerSecond: number, distribution: 'constant' | 'poisson'): SendSchedule {
  const meanGapMs = 1000 / requestsPerSecond;
  return {
    firstMs: 0,
    nextGapMs: distribution === 'constant' ? () => meanGapMs : () => -Math.log(1 - Math.random()) * meanGapMs,
  };
}

/**
 * --request-intervals: request i goes at the sum of the first i + 1 intervals of the list, cycled
 * (perf_analyzer's schedule: its first request after the first interval). A driver with a share
 * sends every `of`-th request from `index`, as perf_analyzer deals one schedule out to its threads,
 * so the drivers together keep the list's gaps.
 */
export function intervalSchedule(intervalsUs: readonly number[], share: ScheduleShare = { index: 0, of: 1 }): SendSchedule {
  let next = 0;
  const advance = (count: number): number => {
    let us = 0;
    for (let k = 0; k < count; k++) {
      us += intervalsUs[next]!;
      next = next + 1 === intervalsUs.length ? 0 : next + 1;
    }
    return us / 1000;
  };
  const firstMs = advance(share.index + 1);
  return { firstMs, nextGapMs: () => advance(share.of) };
}
