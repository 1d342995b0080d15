/**
 * Which latency metrics the server exports (Triton's `--metrics-config`): the cumulative
 * nv_inference_*_duration_us counters (counter_latencies, on by default), the
 * nv_inference_*_summary_us summaries (summary_latencies, off by default) with their quantiles
 * (summary_quantiles), and the decoupled models' nv_inference_first_response_histogram_ms
 * (histogram_latencies, off by default; buckets per model, from its model_metrics). Summaries and
 * histograms are assembled here from each model's readings (executor/latency-summaries.ts,
 * executor/first-response-histogram.ts), for prom-client to write (prometheus-families.ts).
 */
import type { LatencyFamily, LatencySummaryReading } from '../executor/latency-summaries.js';
import type { LatencyRecording, LoadedModel } from '../executor/types.js';
import { firstResponseBuckets, FIRST_RESPONSE_HISTOGRAM, type ModelConfig } from '../config/model-config.js';
import { histogramSamples, type FamilyView } from './prometheus-families.js';

export interface LatencyMetricsConfig {
  /** counter_latencies: the five nv_inference_*_duration_us counters and the cache's counters. */
  counters: boolean;
  /** summary_latencies: the nv_inference_*_summary_us summaries (and the cache's, with a cache). */
  summaries: boolean;
  /** summary_quantiles, each in [0, 1]. */
  quantiles: number[];
  /** histogram_latencies: nv_inference_first_response_histogram_ms of the decoupled models. */
  histograms: boolean;
}

/** Triton's defaults: counters, no summaries or histograms, and its five quantiles. */
export const DEFAULT_LATENCY_METRICS: LatencyMetricsConfig = { counters: true, summaries: false, quantiles: [0.5, 0.9, 0.95, 0.99, 0.999], histograms: false };

/** Triton's summary families, by the reading each one shows. */
const SUMMARY_FAMILIES: ReadonlyArray<{ name: string; help: string; family: LatencyFamily }> = [
  { name: 'nv_inference_request_summary_us', help: 'Summary of inference request duration in microseconds (includes cached requests)', family: 'request' },
  { name: 'nv_inference_queue_summary_us', help: 'Summary of inference queuing duration in microseconds (includes cached requests)', family: 'queue' },
  { name: 'nv_inference_compute_input_summary_us', help: 'Summary of compute input duration in microseconds (does not include cached requests)', family: 'compute_input' },
  { name: 'nv_inference_compute_infer_summary_us', help: 'Summary of compute inference duration in microseconds (does not include cached requests)', family: 'compute_infer' },
  { name: 'nv_inference_compute_output_summary_us', help: 'Summary of compute output duration in microseconds (does not include cached requests)', family: 'compute_output' },
  { name: 'nv_cache_hit_summary_per_model', help: 'Summary of cache hit (lookup) duration per model, in microseconds', family: 'cache_hit' },
  { name: 'nv_cache_miss_summary_per_model', help: 'Summary of cache miss (lookup and insertion) duration per model, in microseconds', family: 'cache_miss' },
];

/** A model's labels, as every per-model family has them. */
const modelLabels = (model: LoadedModel): Record<string, string> => ({ model: model.name, version: model.version });

/**
 * The summaries of the models that have them, one family after another (a family no model has
 * has no samples, and is left out of the text: a cached model has no request summary, as in Triton).
 */
export function latencySummaryFamilies(models: readonly LoadedModel[], quantiles: readonly number[]): FamilyView[] {
  const readings = models.map((model) => ({ labels: modelLabels(model), summaries: model.latencyMetrics?.().readSummaries(quantiles) }));
  return SUMMARY_FAMILIES.map(({ name, help, family }) => ({
    name, help, type: 'summary' as const,
    values: readings.flatMap(({ labels, summaries }) => {
      const reading: LatencySummaryReading | undefined = summaries?.[family];
      if (!reading) return [];
      return [
        ...quantiles.map((q, i) => ({ labels: { ...labels, quantile: String(q) }, value: reading.quantilesUs[i]! })),
        { metricName: `${name}_sum`, labels, value: reading.sumUs },
        { metricName: `${name}_count`, labels, value: reading.count },
      ];
    }),
  }));
}

/** The decoupled models' first-response histograms. */
export function firstResponseHistogramFamily(models: readonly LoadedModel[]): FamilyView {
  return {
    name: FIRST_RESPONSE_HISTOGRAM, help: 'Duration from request to first response in milliseconds', type: 'histogram',
    values: models.flatMap((model) => {
      const r = model.latencyMetrics?.().readFirstResponse?.();
      return r ? histogramSamples(FIRST_RESPONSE_HISTOGRAM, modelLabels(model), r.bucketsMs, r.cumulative, r.sumMs, r.count) : [];
    }),
  };
}

/** What a model with this config observes on a server with these metrics; undefined: nothing. */
export function latencyRecording(metrics: LatencyMetricsConfig, config: ModelConfig): LatencyRecording | undefined {
  if (!metrics.summaries && !metrics.histograms) return undefined;
  return { summaries: metrics.summaries, firstResponseBucketsMs: metrics.histograms ? firstResponseBuckets(config) : undefined };
}
