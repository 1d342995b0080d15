/**
 * perf_analyzer's stability rule: the last 3 windows all have non-zero throughput, and for both
 * throughput and latency max/min is within 1 + s/100. Latency is the average, or the value at
 * --percentile when one is given (as perf_analyzer does).
 */
export const STABILITY_WINDOWS = 3;

export interface StabilityInput {
  throughput: number;
  latencyUs: number;
}

export interface StabilityVerdict {
  stable: boolean;
  /** Spread of the last windows as (max/min - 1) in percent; Infinity when a window had none. */
  throughputSpreadPct: number;
  latencySpreadPct: number;
}

function spreadPct(values: number[]): number {
  const min = Math.min(...values);
  const max = Math.max(...values);
  if (min <= 0) return Number.POSITIVE_INFINITY;
  return (max / min - 1) * 100;
}

export function judgeStability(windows: readonly StabilityInput[], stabilityPercentage: number): StabilityVerdict {
  if (windows.length < STABILITY_WINDOWS) {
    return { stable: false, throughputSpreadPct: Number.POSITIVE_INFINITY, latencySpreadPct: Number.POSITIVE_INFINITY };
  }
  const last = windows.slice(-STABILITY_WINDOWS);
  const throughputSpreadPct = spreadPct(last.map((w) => w.throughput));
  const latencySpreadPct = spreadPct(last.map((w) => w.latencyUs));
  // Compare ratios the way perf_analyzer does (max/min <= 1 + s/100), not rounded percentages.
  const limit = 1 + stabilityPercentage / 100;
  const within = (values: number[]) => Math.min(...values) > 0 && Math.max(...values) / Math.min(...values) <= limit;
  const stable = within(last.map((w) => w.throughput)) && within(last.map((w) => w.latencyUs));
  return { stable, throughputSpreadPct, latencySpreadPct };
}
