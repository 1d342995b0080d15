/**
 * Metric families gebe assembles itself at scrape time (the latency summaries and first-response
 * histograms, Python models' custom metrics) in prom-client's view of a family, which prom-client
 * formats and escapes: one writer of Prometheus' text format, and of a histogram's samples.
 */
import { Registry } from 'prom-client';

/** One sample; `metricName` names a histogram's or summary's _bucket, _sum and _count. */
export interface FamilySample {
  metricName?: string;
  labels: Record<string, string>;
  value: number;
}

export interface FamilyView {
  name: string;
  help: string;
  type: 'counter' | 'gauge' | 'histogram' | 'summary';
  values: FamilySample[];
}

/** A histogram's samples for one series: its buckets (`cumulative` at or under each bound), +Inf, _sum and _count. */
export function histogramSamples(name: string, labels: Record<string, string>, bounds: readonly number[], cumulative: readonly number[], sum: number,
  count: number): FamilySample[] {
  return [
    ...bounds.map((le, i) => ({ metricName: `${name}_bucket`, labels: { ...labels, le: String(le) }, value: cumulative[i]! })),
    { metricName: `${name}_bucket`, labels: { ...labels, le: '+Inf' }, value: count },
    { metricName: `${name}_sum`, labels, value: sum },
    { metricName: `${name}_count`, labels, value: count },
  ];
}

/** The families that have samples, in Prometheus' text format (prom-client's); '' when none has any. */
export async function familiesText(families: readonly FamilyView[]): Promise<string> {
  const registry = new Registry();
  for (const family of families) {
    if (family.values.length > 0) registry.registerMetric({ name: family.name, get: () => family } as never);
  }
  return registry.getMetricsAsArray().length > 0 ? registry.metrics() : '';
}
