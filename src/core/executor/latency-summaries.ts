/**
 * Triton's latency summaries (`--metrics-config summary_latencies=true`): per model and family, the
 * count and sum of every request's duration since load and its quantiles over the last minute. The
 * estimator is the native core's (native/src/scheduler/latency_summary.h), one for every model: the
 * native scheduler observes its models' requests itself; models JS runs (Python, ensembles) and the
 * response cache observe theirs through `JsLatencySummaries`.
 */
import { loadNativeAddon } from './native.js';

/** The summaries Triton exports, by the stats extension's names (request is its success duration). */
export type LatencyFamily = 'request' | 'queue' | 'compute_input' | 'compute_infer' | 'compute_output' | 'cache_hit' | 'cache_miss';

export interface LatencySummaryReading {
  /** Observations since load, and their total in µs. */
  count: number;
  sumUs: number;
  /** One per requested quantile, µs, over the window; NaN while it is empty. */
  quantilesUs: number[];
}

export type LatencySummaries = Partial<Record<LatencyFamily, LatencySummaryReading>>;

interface NativeLatencySummary {
  observe(ns: number, n?: number): void;
  read(quantiles: readonly number[]): LatencySummaryReading;
}
type NativeLatencySummaryClass = new () => NativeLatencySummary;

let summaryClass: NativeLatencySummaryClass | undefined;

/** The summaries of a model gebe runs in JS; a family exists from its first observation. */
export class JsLatencySummaries {
  private readonly families = new Map<LatencyFamily, NativeLatencySummary>();

  /** `n` requests of `ns` nanoseconds each, now. */
  observe(family: LatencyFamily, ns: number, n = 1): void {
    let summary = this.families.get(family);
    if (!summary) {
      summaryClass ??= loadNativeAddon().LatencySummary as NativeLatencySummaryClass;
      summary = new summaryClass();
      this.families.set(family, summary);
    }
    summary.observe(Math.max(0, ns), n);
  }

  read(quantiles: readonly number[], families: readonly LatencyFamily[]): LatencySummaries {
    const out: LatencySummaries = {};
    for (const family of families) {
      out[family] = this.families.get(family)?.read(quantiles) ?? { count: 0, sumUs: 0, quantilesUs: quantiles.map(() => Number.NaN) };
    }
    return out;
  }
}

/** The families every model reports (Triton's five latency summaries). */
export const REQUEST_LATENCY_FAMILIES: readonly LatencyFamily[] = ['request', 'queue', 'compute_input', 'compute_infer', 'compute_output'];
