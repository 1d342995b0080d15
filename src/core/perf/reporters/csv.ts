/**
 * perf_analyzer's CSV (-f): the same header and column order, latencies in µs, so existing scripts
 * keep working. A sweep over several batch sizes appends a "Batch Size" column at the end, leaving
 * the positions of perf_analyzer's columns untouched; a sweep with an unstable or failed setting
 * appends a "Status" column after it (a failed setting's figures are empty).
 */
import type { PerfReport, ReportRow } from '../report.js';

const LATENCY_COLUMNS = [
  'Client Send', 'Network+Server Send/Recv', 'Server Queue', 'Server Compute Input', 'Server Compute Infer',
  'Server Compute Output', 'Client Recv', 'p50 latency', 'p90 latency', 'p95 latency', 'p99 latency',
];

export function formatCsv(report: PerfReport): string {
  const multiBatch = new Set(report.rows.map((r) => r.batchSize)).size > 1;
  const first = report.load === 'concurrency' ? 'Concurrency' : 'Request Rate';
  const marked = report.rows.some((r) => r.status !== 'stable');
  const header = [first, 'Inferences/Second', ...LATENCY_COLUMNS, ...(multiBatch ? ['Batch Size'] : []), ...(marked ? ['Status'] : [])];
  const lines = report.rows.map((r) => [
    String(r.concurrency ?? r.requestRate),
    ...figures(r),
    ...(multiBatch ? [String(r.batchSize)] : []),
    ...(marked ? [r.status] : []),
  ].join(','));
  return `${[header.join(','), ...lines].join('\n')}\n`;
}

/** Throughput and the latency columns; all empty for a failed setting, which measured nothing. */
function figures(r: ReportRow): string[] {
  // A phase the server could not account for (NaN) is left empty rather than written as 0.
  const us = (v: number | undefined) => (v !== undefined && !Number.isFinite(v) ? '' : String(Math.round(v ?? 0)));
  const cells = [
    String(Math.round(r.throughput * 100) / 100),
    us(r.clientSendUs),
    us(r.networkServerUs),
    us(r.server?.queueUs),
    us(r.server?.computeInputUs),
    us(r.server?.computeInferUs),
    us(r.server?.computeOutputUs),
    us(r.clientRecvUs),
    us(r.latencyUs.p50),
    us(r.latencyUs.p90),
    us(r.latencyUs.p95),
    us(r.latencyUs.p99),
  ];
  return r.status === 'failed' ? cells.map(() => '') : cells;
}
