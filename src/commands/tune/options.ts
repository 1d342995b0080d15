/**
 * gebe tune's flags. The measurement flags are perf's (parsed by perf's own parser, so every
 * trial is measured exactly as `gebe perf` would); the search adds constraints, an objective,
 * the dimensions' ranges, the checkpoint and --write.
 */
import path from 'node:path';
import { UsageError } from '../../errors.js';
import type { InputDataSpec } from '../../core/perf/inputs.js';
import type { MeasurementOptions } from '../../core/perf/load-generator.js';
import type { Constraints, LatencyMetric, Objective } from '../../core/tune/objective.js';
import { DEFAULT_DELAYS_US } from '../../core/tune/space.js';
import { parsePerfFlags, type PerfFlags } from '../perf/options.js';
import type { RemoteConnection } from '../../core/kserve/client/connection.js';
import type { ConnectionFlags } from '../connection-option.js';

export interface TuneOptions {
  model: string;
  modelVersion?: string;
  /** The repository the model runs from in process; with -u, the local copy --write edits (optional). */
  repository?: string;
  /** A server (HTTP, explicit model control) to reload the model on per trial, instead of in process. */
  url?: string;
  /** TLS and -H headers for the server. */
  connection?: RemoteConnection;
  clientThreads: number;
  batchSize: number;
  concurrencies: number[];
  measurement: MeasurementOptions;
  shapes: Record<string, number[]>;
  inputData: InputDataSpec;
  constraints: Constraints;
  objective: Objective;
  exhaustive: boolean;
  trialLimit: number;
  maxInstanceCount: number;
  delaysUs: number[];
  checkpointFile: string;
  fresh: boolean;
  write: boolean;
  json: boolean;
  reportFile?: string;
}

export type TuneFlags = Pick<PerfFlags, 'model' | 'modelVersion' | 'modelRepository' | 'url' | 'concurrency' | 'batchSize' | 'measurementInterval' | 'measurementMode' |
  'measurementRequestCount' | 'stabilityPercentage' | 'maxTrials' | 'percentile' | 'shape' | 'inputData' | 'warmupRequestCount' | 'json' | 'report' | 'clientThreads'> & ConnectionFlags & {
  latencyBudget?: string[];
  minThroughput?: string;
  objective?: string;
  throughputWeight?: string;
  latencyWeight?: string;
  exhaustive?: boolean;
  trialLimit?: string;
  maxInstanceCount?: string;
  maxQueueDelays?: string;
  checkpoint?: string;
  fresh?: boolean;
  write?: boolean;
};

/** Trials are many: shorter windows than perf's 5 s by default (perf's stability rule still decides). */
const DEFAULT_INTERVAL_MS = '1000';

const UNITS: Record<string, number> = { us: 1, µs: 1, ms: 1000, s: 1_000_000 };

/** `p99=5ms` → { metric: 'p99', us: 5000 }. */
export function parseLatencyBudget(text: string): { metric: LatencyMetric; us: number } {
  const m = /^(avg|p50|p90|p95|p99)=(\d+(?:\.\d+)?)(us|µs|ms|s)$/.exec(text.trim());
  if (!m || !(Number(m[2]) > 0)) {
    throw new UsageError(`--latency-budget "${text}" is not <metric>=<time>; metric one of avg, p50, p90, p95, p99 and time with us, ms or s, e.g. --latency-budget p99=5ms`);
  }
  return { metric: m[1] as LatencyMetric, us: Number(m[2]) * UNITS[m[3]!]! };
}

function positive(flag: string, text: string | undefined, fallback: number, integer: boolean, max = Infinity): number {
  if (text === undefined) return fallback;
  const v = Number(text);
  if (text.trim() === '' || !(v > 0) || v > max || (integer && !Number.isInteger(v))) {
    throw new UsageError(`${flag} "${text}" is not a positive ${integer ? 'whole number' : 'number'}${max < Infinity ? ` up to ${max}` : ''}; e.g. ${flag} ${fallback}`);
  }
  return v;
}

function parseObjective(flags: TuneFlags): Objective {
  const kind = flags.objective ?? 'throughput';
  if (kind === 'throughput' || kind === 'latency') {
    if (flags.throughputWeight !== undefined || flags.latencyWeight !== undefined) throw new UsageError('--throughput-weight and --latency-weight go with --objective weighted');
    return { kind };
  }
  if (kind === 'weighted') {
    return { kind, throughputWeight: positive('--throughput-weight', flags.throughputWeight, 1, false), latencyWeight: positive('--latency-weight', flags.latencyWeight, 1, false) };
  }
  throw new UsageError(`--objective "${kind}" is not one of throughput, latency, weighted; e.g. --objective throughput`);
}

export function parseTuneFlags(flags: TuneFlags, cwd: string): TuneOptions {
  if (!flags.model) throw new UsageError('-m/--model is required; name the model to tune, e.g. gebe tune -m mnist --latency-budget p99=5ms');
  // perf's parser takes one target; with -u the repository is only where --write edits.
  const perf = parsePerfFlags({
    ...flags, ...(flags.url !== undefined ? { modelRepository: undefined } : {}),
    concurrency: flags.concurrency ?? '1,2,4,8', measurementInterval: flags.measurementInterval ?? DEFAULT_INTERVAL_MS, report: undefined, json: false,
  }, cwd);
  if (perf.target.kind === 'remote' && /^grpc:\/\//i.test(perf.target.url)) throw new UsageError('gebe tune reloads the model over HTTP (the model-control API); give the server\'s HTTP address to -u');
  const repository = perf.target.kind === 'in-process' ? perf.target.repository
    : flags.modelRepository !== undefined ? path.resolve(cwd, flags.modelRepository) : undefined;
  if (flags.write && repository === undefined) throw new UsageError('--write with -u needs --model-repository: the local repository whose config.pbtxt to edit');
  if (perf.batchSizes.length !== 1) throw new UsageError('-b/--batch-size takes one client batch size for gebe tune (the server-side batching is what it searches)');
  const delays = flags.maxQueueDelays === undefined ? DEFAULT_DELAYS_US : flags.maxQueueDelays.split(',').map((d) => Number(d.trim()));
  if (delays.some((d) => !Number.isInteger(d) || d < 0 || d > 10_000_000)) {
    throw new UsageError(`--max-queue-delays "${flags.maxQueueDelays}" is not a list of microseconds, e.g. --max-queue-delays 0,100,500,2000`);
  }
  const latencyBudgets = (flags.latencyBudget ?? []).map(parseLatencyBudget);
  return {
    model: flags.model,
    ...(perf.modelVersion !== undefined ? { modelVersion: perf.modelVersion } : {}),
    ...(repository !== undefined ? { repository } : {}),
    ...(perf.target.kind === 'remote' ? { url: perf.target.url, ...(perf.target.connection ? { connection: perf.target.connection } : {}) } : {}),
    clientThreads: perf.clientThreads,
    batchSize: perf.batchSizes[0]!,
    concurrencies: perf.levels,
    measurement: perf.measurement,
    shapes: perf.shapes,
    inputData: perf.inputData,
    constraints: { latencyBudgets, ...(flags.minThroughput !== undefined ? { minThroughput: positive('--min-throughput', flags.minThroughput, 100, false) } : {}) },
    objective: parseObjective(flags),
    exhaustive: Boolean(flags.exhaustive),
    trialLimit: positive('--trial-limit', flags.trialLimit, 40, true, 10_000),
    maxInstanceCount: positive('--max-instance-count', flags.maxInstanceCount, 4, true, 64),
    delaysUs: [...new Set(delays)].sort((a, b) => a - b),
    checkpointFile: path.resolve(cwd, flags.checkpoint ?? `gebe-tune-${flags.model.replace(/[^A-Za-z0-9._-]/g, '_')}.checkpoint.json`),
    fresh: Boolean(flags.fresh),
    write: Boolean(flags.write),
    json: Boolean(flags.json),
    ...(flags.report !== undefined ? { reportFile: path.resolve(cwd, flags.report) } : {}),
  };
}
