/**
 * perf_analyzer's CSV (-f): the same header and column order, latencies in µs, so existing scripts
 * keep working. A sweep over several batch sizes appends a "Batch Size" column at the end, leaving
 * the positions of perf_analyzer's columns untouched; a sweep with an unstable or failed setting
 * appends a "Status" column after it (a failed setting's figures are empty). Where the server's
 * response cache saw the requests, perf_analyzer's "Server Cache Hit" and "Server Cache Miss"
 * (µs per hit, per miss) follow "Server Compute Output", as perf_analyzer writes them for a
 * cache-enabled model.
 */
import type { PerfReport, ReportRow } from '../report.js';

const SERVER_COLUMNS = ['Client Send', 'Network+Server Send/Recv', 'Server Queue', 'Server Compute Input', 'Server Compute Infer', 'Server Compute Output'];
const CACHE_COLUMNS = ['Server Cache Hit', 'Server Cache Miss'];
const CLIENT_COLUMNS = ['Client Recv', 'p50 latency', 'p90 latency', 'p95 latency', 'p99 latency'];

export function formatCsv(report: PerfReport): string {
  const multiBatch = new Set(report.rows.map((r) => r.batchSize)).size > 1;
  const first = report.load === 'concurrency' ? 'Concurrency' : 'Request Rate';
  const marked = report.rows.some((r) => r.status !== 'stable');
  const cached = report.rows.some((r) => r.server?.cache);
  const header = [first, 'Inferences/Second', ...SERVER_COLUMNS, ...(cached ? CACHE_COLUMNS : []), ...CLIENT_COLUMNS,
    ...(multiBatch ? ['Batch Size'] : []), ...(marked ? ['Status'] : [])];
  const lines = report.rows.map((r) => [
    String(r.concurrency ?? r.requestRate),
    ...figures(r, cached),
    ...(multiBatch ? [String(r.batchSize)] : []),
    ...(marked ? [r.status] : []),
  ].join(','));
  return `${[header.join(','), ...lines].join('\n')}\n`;
}

/** Throughput and the latency columns; all empty for a failed setting, which measured nothing. */
function figures(r: ReportRow, cached: boolean): string[] {
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
    ...(cached ? [us(r.server?.cache?.hitUs), us(r.server?.cache?.missUs)] : []),
    us(r.clientRecvUs),
    us(r.latencyUs.p50),
    us(r.latencyUs.p90),
    us(r.latencyUs.p95),
    us(r.latencyUs.p99),
  ];
  return r.status === 'failed' ? cells.map(() => '') : cells;
}
