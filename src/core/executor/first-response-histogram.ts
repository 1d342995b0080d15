/**
 * Triton's nv_inference_first_response_histogram_ms (`--metrics-config histogram_latencies=true`):
 * how long a decoupled model's requests wait for their first response, in ms, counted into the
 * buckets its config's model_metrics names (default Triton's 100, 500, 2000, 5000). Each decoupled
 * model JS runs (Python, ensembles) times its requests' callbacks with `timed`.
 */
export interface HistogramReading {
  /** The buckets' upper bounds (ms), increasing; the +Inf bucket is `count`. */
  bucketsMs: readonly number[];
  /** Observations at or under each bound (cumulative, as Prometheus writes them). */
  cumulative: number[];
  sumMs: number;
  count: number;
}

export class FirstResponseHistogram {
  private readonly counts: number[];
  private sumMs = 0;
  private count = 0;

  constructor(readonly bucketsMs: readonly number[]) {
    this.counts = new Array<number>(bucketsMs.length).fill(0);
  }

  observe(ms: number): void {
    this.sumMs += ms;
    this.count += 1;
    const i = this.bucketsMs.findIndex((le) => ms <= le);
    if (i >= 0) this.counts[i]! += 1;
  }

  /**
   * `onResponse` (a decoupled request's, types.ts' DecoupledResponse), observing the time from now
   * to the first response it carries (outputs or an error).
   */
  timed<R extends { response?: unknown; error?: unknown }>(onResponse: (r: R) => void): (r: R) => void {
    const start = process.hrtime.bigint();
    let first = true;
    return (r) => {
      if (first && (r.response !== undefined || r.error !== undefined)) {
        first = false;
        this.observe(Number(process.hrtime.bigint() - start) / 1e6);
      }
      onResponse(r);
    };
  }

  read(): HistogramReading {
    let running = 0;
    return { bucketsMs: this.bucketsMs, cumulative: this.counts.map((c) => (running += c)), sumMs: this.sumMs, count: this.count };
  }
}
