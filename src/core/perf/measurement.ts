/**
 * A measurement window and how windows combine: the client side from the drivers' windows (merged
 * by aggregateHistograms), the server side from statistics deltas. The result of a setting is the
 * merge of its last stable windows, as perf_analyzer reports it.
 */
import { aggregateHistograms, summarizeLatency, type Histogram, type LatencySummary } from './histogram.js';
import { addDeltas, breakdown, type ServerBreakdown, type ServerDelta } from './server-breakdown.js';
import type { DriverWindow } from './driver.js';

/** A loop busier than this is a client that saturated its core. */
export const SATURATED_LOOP = 0.95;

export interface Measurement {
  durationMs: number;
  requests: number;
  /** requests × batch size: what the server counts as inferences. */
  inferences: number;
  /** Inferences per second (perf_analyzer's "infer/sec"). */
  throughput: number;
  latency: LatencySummary;
  /** Average client send / receive time per request (µs), when the transport can tell. */
  clientSendUs?: number;
  clientRecvUs?: number;
  server?: ServerBreakdown;
  /** Busiest client event loop in the window (0..1). */
  clientLoopBusy: number;
  clientSaturated: boolean;
  /** Kept for merging; not part of reports. */
  raw: { histogram: Histogram; latencySumUs: number; timedRequests: number; sendUsSum: number; recvUsSum: number; server?: ServerDelta };
}

function finish(
  durationMs: number, requests: number, batchSize: number, histogram: Histogram, latencySumUs: number,
  timed: { timedRequests: number; sendUsSum: number; recvUsSum: number }, loopBusy: number,
  server: ServerDelta | undefined, percentile: number | undefined,
): Measurement {
  const inferences = requests * batchSize;
  return {
    durationMs,
    requests,
    inferences,
    throughput: durationMs > 0 ? inferences / (durationMs / 1000) : 0,
    latency: summarizeLatency(histogram, latencySumUs, percentile),
    ...(timed.timedRequests > 0 ? {
      clientSendUs: timed.sendUsSum / timed.timedRequests,
      clientRecvUs: timed.recvUsSum / timed.timedRequests,
    } : {}),
    ...(server ? { server: breakdown(server) } : {}),
    clientLoopBusy: loopBusy,
    clientSaturated: loopBusy >= SATURATED_LOOP,
    raw: { histogram, latencySumUs, ...timed, ...(server ? { server } : {}) },
  };
}

export function windowFromDrivers(
  parts: readonly DriverWindow[], durationMs: number, batchSize: number,
  server: ServerDelta | undefined, percentile?: number,
): Measurement {
  const sum = (f: (w: DriverWindow) => number) => parts.reduce((a, w) => a + f(w), 0);
  return finish(
    durationMs, sum((w) => w.requests), batchSize, aggregateHistograms(parts.map((w) => w.histogram)), sum((w) => w.latencySumUs),
    { timedRequests: sum((w) => w.timedRequests), sendUsSum: sum((w) => w.sendUsSum), recvUsSum: sum((w) => w.recvUsSum) },
    Math.max(0, ...parts.map((w) => w.loopBusy)), server, percentile,
  );
}

export function mergeMeasurements(windows: readonly Measurement[], batchSize: number, percentile?: number): Measurement {
  const sum = (f: (w: Measurement) => number) => windows.reduce((a, w) => a + f(w), 0);
  const servers = windows.map((w) => w.raw.server);
  const server = servers.every((s): s is ServerDelta => s !== undefined) && servers.length > 0 ? addDeltas(servers) : undefined;
  return finish(
    sum((w) => w.durationMs), sum((w) => w.requests), batchSize, aggregateHistograms(windows.map((w) => w.raw.histogram)), sum((w) => w.raw.latencySumUs),
    { timedRequests: sum((w) => w.raw.timedRequests), sendUsSum: sum((w) => w.raw.sendUsSum), recvUsSum: sum((w) => w.raw.recvUsSum) },
    Math.max(0, ...windows.map((w) => w.clientLoopBusy)), server, percentile,
  );
}

/** The latency the stability rule and --latency-threshold look at: --percentile if given, else the average. */
export function judgedLatencyUs(m: Measurement): number {
  return m.latency.percentileUs ?? m.latency.avgUs;
}
