/**
 * Triton's --metrics-config <setting>=<value> (repeatable) → which latency metrics serve exports:
 * counter_latencies (default true), summary_latencies (default false), summary_quantiles
 * (<quantile>:<error>,...) and histogram_latencies (default false: the decoupled models'
 * first-response histogram). Triton's summaries keep a rank error per quantile (CKMS); gebe's
 * quantiles are within 1.6% of an observed value (native/src/scheduler/latency_summary.h), so an
 * error is accepted and has no effect. Settings gebe does not know are accepted without effect,
 * and named at start as Triton's other flags without effect are.
 */
import { UsageError } from '../../errors.js';
import { DEFAULT_LATENCY_METRICS, type LatencyMetricsConfig } from '../../core/server/latency-metrics.js';

/** More quantiles than anyone plots, and a bound on what each scrape writes per model. */
export const MAX_SUMMARY_QUANTILES = 16;

function setting(value: string, spec: string): boolean {
  if (value === 'true') return true;
  if (value === 'false') return false;
  throw new UsageError(`--metrics-config '${spec}' takes true or false`);
}

function quantiles(value: string, spec: string): number[] {
  const hint = 'write them as Triton does, e.g. --metrics-config summary_quantiles=0.5:0.05,0.9:0.01,0.99:0.001';
  const out: number[] = [];
  for (const pair of value.split(',')) {
    const m = /^\s*([0-9.eE+-]+)\s*(?::\s*([0-9.eE+-]+)\s*)?$/.exec(pair);
    const q = Number(m?.[1]);
    const error = m?.[2] === undefined ? 0 : Number(m[2]);
    if (!m || !(q >= 0 && q <= 1) || !(error >= 0 && error <= 1)) {
      throw new UsageError(`--metrics-config '${spec}': '${pair}' is not <quantile>:<error> with both in [0, 1]`, hint);
    }
    if (out.includes(q)) throw new UsageError(`--metrics-config '${spec}': quantile ${q} is given twice`, hint);
    out.push(q);
  }
  if (out.length > MAX_SUMMARY_QUANTILES) {
    throw new UsageError(`--metrics-config '${spec}' names ${out.length} quantiles; at most ${MAX_SUMMARY_QUANTILES}`, hint);
  }
  return out;
}

/** The latency metrics the settings ask for, and the settings accepted without effect (each with why). */
export function latencyMetricsConfig(specs: readonly string[]): { config: LatencyMetricsConfig; ignored: string[] } {
  const config = { ...DEFAULT_LATENCY_METRICS };
  const ignored: string[] = [];
  for (const spec of specs) {
    const m = /^([a-z_]+)=(.*)$/.exec(spec);
    if (!m) throw new UsageError(`--metrics-config must be <setting>=<value>, got '${spec}'`, 'for example --metrics-config summary_latencies=true');
    const [, name, value] = m as unknown as [string, string, string];
    if (name === 'counter_latencies') config.counters = setting(value, spec);
    else if (name === 'summary_latencies') config.summaries = setting(value, spec);
    else if (name === 'summary_quantiles') config.quantiles = quantiles(value, spec);
    else if (name === 'histogram_latencies') config.histograms = setting(value, spec);
    else ignored.push(`--metrics-config ${spec} (not a setting gebe knows: counter_latencies, summary_latencies, summary_quantiles, histogram_latencies)`);
  }
  return { config, ignored };
}
