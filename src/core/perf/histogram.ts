/**
 * Latency histograms: hdr-histogram with an explicit range and precision, and the one function that
 * merges per-worker histograms (so one worker and N workers go through the same code).
 */
import * as hdr from 'hdr-histogram-js';

/** Latencies are recorded in microseconds, from 1 µs to 10 minutes, with 3 significant digits. */
export const HISTOGRAM_RANGE = {
  lowestDiscernibleValue: 1,
  highestTrackableValue: 600_000_000,
  numberOfSignificantValueDigits: 3,
} as const;

export type Histogram = hdr.Histogram;

export function createLatencyHistogram(): Histogram {
  return hdr.build({
    ...HISTOGRAM_RANGE,
    bitBucketSize: 32,
    // A latency past ten minutes is a hung request, not a measurement; clamp instead of resizing.
    autoResize: false,
    useWebAssembly: false,
  });
}

/** Records one latency, clamped into the histogram's range (a 0 µs reading becomes 1 µs); returns what it recorded. */
export function recordLatency(h: Histogram, micros: number): number {
  const v = Math.min(Math.max(1, Math.round(micros)), HISTOGRAM_RANGE.highestTrackableValue);
  h.recordValue(v);
  return v;
}

/** The single aggregate function: a fresh histogram holding the sum of all given ones. */
export function aggregateHistograms(parts: readonly Histogram[]): Histogram {
  const total = createLatencyHistogram();
  for (const part of parts) total.add(part);
  return total;
}

/** Histograms cross worker-thread boundaries in HdrHistogram's compressed interchange format. */
export function encodeHistogram(h: Histogram): string {
  return hdr.encodeIntoCompressedBase64(h);
}

export function decodeHistogram(encoded: string): Histogram {
  const decoded = hdr.decodeFromCompressedBase64(encoded, 32, false);
  // Re-home into our explicit range so aggregateHistograms adds like to like.
  const h = aggregateHistograms([decoded]);
  decoded.destroy();
  return h;
}

export interface LatencySummary {
  count: number;
  avgUs: number;
  minUs: number;
  maxUs: number;
  p50Us: number;
  p90Us: number;
  p95Us: number;
  p99Us: number;
  /** The value at --percentile when one was asked for. */
  percentileUs?: number;
}

/**
 * Percentiles from the histogram; the average from the exact sum of recorded values, because
 * hdr-histogram-js computes `mean` by iterating every bucket (tens of ms on the event loop that
 * also drives the load).
 */
export function summarizeLatency(h: Histogram, sumUs: number, percentile?: number): LatencySummary {
  const empty = h.totalCount === 0;
  const at = (p: number) => (empty ? 0 : h.getValueAtPercentile(p));
  return {
    count: h.totalCount,
    avgUs: empty ? 0 : sumUs / h.totalCount,
    minUs: empty ? 0 : h.minNonZeroValue,
    // The percentile view, not h.maxValue: it agrees before and after merging or decoding.
    maxUs: at(100),
    p50Us: at(50),
    p90Us: at(90),
    p95Us: at(95),
    p99Us: at(99),
    ...(percentile !== undefined ? { percentileUs: at(percentile) } : {}),
  };
}
