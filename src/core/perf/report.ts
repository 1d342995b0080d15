/**
 * The report as plain data: what --json prints and what the table, CSV and HTML reporters format.
 * Latencies are in microseconds, throughput in inferences per second.
 */
import type { SequenceSpec } from './sequences.js';
import type { ServerBreakdown } from './server-breakdown.js';
import type { SettingResult, SettingStatus } from './load-generator.js';

export interface ReportRow {
  batchSize: number;
  concurrency?: number;
  requestRate?: number;
  /** Inferences per second (requests × batch size). */
  throughput: number;
  requestsPerSecond: number;
  latencyUs: { avg: number; p50: number; p90: number; p95: number; p99: number; percentile?: number };
  clientSendUs?: number;
  clientRecvUs?: number;
  /** Latency not spent in the client or in the server's queue and compute: the network and server I/O. */
  networkServerUs?: number;
  server?: ServerBreakdown;
  /** Windows measured until the last ones were stable (or -r ran out). */
  windows: number;
  /** stable; unstable: -r windows never agreed within -s (the figures are the last windows'); failed: see note. */
  status: SettingStatus;
  /** Why a setting is unstable or failed. */
  note?: string;
  /** What to change for an unstable setting. */
  hint?: string;
  clientLoopBusy: number;
  clientSaturated: boolean;
}

export interface BestSetting {
  batchSize: number;
  concurrency?: number;
  requestRate?: number;
  throughput: number;
  latencyUs: number;
}

export interface PerfSummary {
  /** The latency the summary and stability judge: "avg" or "p<percentile>". */
  latencyMetric: string;
  best: BestSetting;
  latencyThresholdMs?: number;
  /** Best throughput with latency at or under the threshold; null when no setting met it. */
  bestUnderThreshold?: BestSetting | null;
  /** Settings where a client event loop saturated a core: their figures may be client-bound. */
  clientSaturated: Array<{ batchSize: number; concurrency?: number; requestRate?: number }>;
}

/** Where the run happened, so a report read alone says what it measured. */
export interface RunEnvironment {
  gebeVersion: string;
  node: string;
  /** The machine gebe perf ran on (for -u runs, the client's; the server may be elsewhere). */
  os: string;
  cpu: string;
  cores: number;
  memoryGiB: number;
}

/** The run's measurement settings, as the flags set them. */
export interface RunSettings {
  measurementMode: 'time_windows' | 'count_windows';
  measurementIntervalMs: number;
  measurementRequestCount: number;
  stabilityPercentage: number;
  maxTrials: number;
  percentile?: number;
  inputData: string;
  warmupRequestCount: number;
  /** --request-intervals: its file and how many intervals it holds (the rows' request rate is the one they make). */
  requestIntervals?: { file: string; intervals: number };
  /** A sequence model's sequences: length, variation (%) and id range. */
  sequences?: SequenceSpec;
}

export interface PerfReport {
  model: { name: string; version: string };
  /** The parts of the model configuration that decide its performance, as the target runs it. */
  modelConfig?: Record<string, unknown>;
  environment?: RunEnvironment;
  settings?: RunSettings;
  target: string;
  load: 'concurrency' | 'request-rate';
  /** Where the load ran: in process on the executor, or against a server over HTTP or gRPC. */
  mode: 'in-process' | 'http' | 'grpc';
  clientThreads: number;
  rows: ReportRow[];
  summary: PerfSummary;
  /** Set when the sweep stopped early: why. The rows are the settings measured before it. */
  incomplete?: string;
}

/** A failed setting's row: no figures (NaN, null in JSON), only the status and the error. */
function failedRow(result: SettingResult): ReportRow {
  return {
    batchSize: result.setting.batchSize,
    ...(result.setting.concurrency !== undefined ? { concurrency: result.setting.concurrency } : {}),
    ...(result.setting.requestRate !== undefined ? { requestRate: result.setting.requestRate } : {}),
    throughput: 0,
    requestsPerSecond: 0,
    latencyUs: { avg: NaN, p50: NaN, p90: NaN, p95: NaN, p99: NaN },
    windows: result.windows.length,
    clientLoopBusy: 0,
    clientSaturated: false,
    status: 'failed',
    ...(result.note !== undefined ? { note: result.note } : {}),
  };
}

export function toRow(result: SettingResult): ReportRow {
  const m = result.measurement;
  if (!m) return failedRow(result);
  const l = m.latency;
  const known = (v: number) => (Number.isFinite(v) ? v : 0);
  // As perf_analyzer: with a response cache, an average hit and an average miss are accounted too.
  const cacheUs = m.server?.cache ? known(m.server.cache.hitUs) + known(m.server.cache.missUs) : 0;
  const serverUs = m.server ? known(m.server.queueUs) + known(m.server.computeInputUs) + known(m.server.computeInferUs) + known(m.server.computeOutputUs) + cacheUs : 0;
  const clientUs = (m.clientSendUs ?? 0) + (m.clientRecvUs ?? 0);
  return {
    batchSize: result.setting.batchSize,
    ...(result.setting.concurrency !== undefined ? { concurrency: result.setting.concurrency } : {}),
    ...(result.setting.requestRate !== undefined ? { requestRate: result.setting.requestRate } : {}),
    throughput: m.throughput,
    requestsPerSecond: m.durationMs > 0 ? m.requests / (m.durationMs / 1000) : 0,
    latencyUs: {
      avg: l.avgUs, p50: l.p50Us, p90: l.p90Us, p95: l.p95Us, p99: l.p99Us,
      ...(l.percentileUs !== undefined ? { percentile: l.percentileUs } : {}),
    },
    ...(m.clientSendUs !== undefined ? { clientSendUs: m.clientSendUs, clientRecvUs: m.clientRecvUs } : {}),
    ...(m.server ? { server: m.server, networkServerUs: Math.max(0, l.avgUs - clientUs - serverUs) } : {}),
    windows: result.windows.length,
    clientLoopBusy: m.clientLoopBusy,
    clientSaturated: m.clientSaturated,
    status: result.status,
    ...(result.note !== undefined ? { note: result.note } : {}),
    ...(result.hint !== undefined ? { hint: result.hint } : {}),
  };
}

function judged(row: ReportRow): number {
  return row.latencyUs.percentile ?? row.latencyUs.avg;
}

function best(rows: ReportRow[]): BestSetting | null {
  let top: ReportRow | undefined;
  for (const r of rows) if (!top || r.throughput > top.throughput) top = r;
  if (!top) return null;
  return {
    batchSize: top.batchSize,
    ...(top.concurrency !== undefined ? { concurrency: top.concurrency } : {}),
    ...(top.requestRate !== undefined ? { requestRate: top.requestRate } : {}),
    throughput: top.throughput,
    latencyUs: judged(top),
  };
}

export function summarize(rows: ReportRow[], percentile: number | undefined, latencyThresholdMs: number | undefined): PerfSummary {
  const measured = rows.filter((r) => r.status !== 'failed');
  const overall = best(measured);
  if (!overall) throw new Error('summarize needs at least one measured setting');
  return {
    latencyMetric: percentile !== undefined ? `p${percentile}` : 'avg',
    best: overall,
    ...(latencyThresholdMs !== undefined ? {
      latencyThresholdMs,
      bestUnderThreshold: best(measured.filter((r) => judged(r) <= latencyThresholdMs * 1000)),
    } : {}),
    clientSaturated: rows.filter((r) => r.clientSaturated).map((r) => ({
      batchSize: r.batchSize,
      ...(r.concurrency !== undefined ? { concurrency: r.concurrency } : {}),
      ...(r.requestRate !== undefined ? { requestRate: r.requestRate } : {}),
    })),
  };
}

export function settingLabel(s: { batchSize: number; concurrency?: number; requestRate?: number }): string {
  return s.concurrency !== undefined
    ? `batch ${s.batchSize}, concurrency ${s.concurrency}`
    : `batch ${s.batchSize}, ${s.requestRate} req/s`;
}
