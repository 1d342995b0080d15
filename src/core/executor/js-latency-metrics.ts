/**
 * The latency metrics of a model JS runs (a Python model, an ensemble): Triton's latency summaries
 * and, for a decoupled model, the first-response histogram, each off until the server asks for it
 * (`--metrics-config`). The model's statistics observe into it; the model hands it out as
 * `LoadedModel`'s latency readings. One recorder, so each JS-run model does this the same way.
 */
import { FirstResponseHistogram, type HistogramReading } from './first-response-histogram.js';
import { JsLatencySummaries, REQUEST_LATENCY_FAMILIES, type LatencyFamily, type LatencySummaries } from './latency-summaries.js';
import type { LatencyMetrics, LatencyRecording } from './types.js';

export class JsLatencyMetrics implements LatencyMetrics {
  private summaries?: JsLatencySummaries;
  private firstResponse?: FirstResponseHistogram;

  constructor(private readonly decoupled: boolean) {}

  enable(which: LatencyRecording): void {
    if (which.summaries) this.summaries ??= new JsLatencySummaries();
    if (which.firstResponseBucketsMs && this.decoupled) this.firstResponse ??= new FirstResponseHistogram(which.firstResponseBucketsMs);
  }

  /** `n` requests of `ns` nanoseconds each in `family`, when summaries are on. */
  observe(family: LatencyFamily, ns: number, n = 1): void {
    this.summaries?.observe(family, ns, n);
  }

  /** A decoupled request's response callback, timed to its first response when the histogram is on. */
  timed<R extends { response?: unknown; error?: unknown }>(onResponse: (r: R) => void): (r: R) => void {
    return this.firstResponse ? this.firstResponse.timed(onResponse) : onResponse;
  }

  readSummaries(quantiles: readonly number[]): LatencySummaries | undefined {
    return this.summaries?.read(quantiles, REQUEST_LATENCY_FAMILIES);
  }

  readFirstResponse(): HistogramReading | undefined {
    return this.firstResponse?.read();
  }
}
