/**
 * gebe perf's flags (perf_analyzer's names where they exist) parsed into typed options. Every bad
 * value is a one-line UsageError that shows the fix.
 */
import { existsSync } from 'node:fs';
import { parseProtocol } from '../protocol-option.js';
import { parseConnection, type ConnectionFlags } from '../connection-option.js';
import type { RemoteConnection } from '../../core/kserve/client/connection.js';
import type { TensorFormats } from '../../core/perf/remote-options.js';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { IGNORED_PERF_ANALYZER_FLAGS } from './perf-analyzer-flags.js';
import { givenIgnoredFlags } from '../ignored-flags.js';
import { UsageError } from '../../errors.js';
import type { InputDataSpec } from '../../core/perf/inputs.js';
import type { TraceSettings } from '../../core/kserve/client/types.js';
import { isTraceLevel, TRACE_LEVELS } from '../../core/kserve/trace-levels.js';
import type { ServerTrace } from '../../core/perf/server-trace.js';
import type { MeasurementOptions } from '../../core/perf/load-generator.js';
import { CONCURRENCY_SPEC, parseBatchSizes, parseLevels, parseShapes, REQUEST_RATE_SPEC } from '../../core/perf/ranges.js';
import { intervalsRate, readRequestIntervals } from '../../core/perf/request-intervals.js';
import { DEFAULT_STRING_LENGTH, MAX_STRING_BYTES } from '../../core/perf/generated-strings.js';
import type { RequestParameters } from '../../core/kserve/client/types.js';
import { parseRequestParameters } from './request-parameters.js';

export type PerfTargetSpec =
  | { kind: 'in-process'; repository: string }
  | { kind: 'remote'; url: string; protocol: 'http' | 'grpc'; streaming?: boolean; sharedMemory?: { outputBytes: number }; connection?: RemoteConnection; trace?: ServerTrace; tensorFormat?: TensorFormats };

export interface PerfOptions {
  model: string;
  modelVersion?: string;
  target: PerfTargetSpec;
  /** request-intervals: one setting per batch size on --request-intervals' schedule, its level the rate the intervals make. */
  load: 'concurrency' | 'request-rate' | 'request-intervals';
  levels: number[];
  /** --request-intervals: the file and its gaps (µs), cycled. */
  requestIntervals?: { file: string; intervalsUs: number[] };
  /** --request-parameter: parameters every infer request carries. */
  requestParameters?: RequestParameters;
  distribution: 'constant' | 'poisson';
  batchSizes: number[];
  measurement: MeasurementOptions;
  shapes: Record<string, number[]>;
  inputData: InputDataSpec;
  csvFile?: string;
  json: boolean;
  reportFile?: string;
  /** --profile-export-file: every measured request's timestamps, in perf_analyzer's JSON. */
  profileExportFile?: string;
  /** perf_analyzer flags given that gebe perf accepts without effect, each with why (perf-analyzer-flags.ts). */
  ignoredFlags?: string[];
  latencyThresholdMs?: number;
  /** Client threads for network targets (0: the main thread). */
  clientThreads: number;
  /** --sequence-length / --sequence-id-range; for a sequence model without them, perf_analyzer's defaults apply. */
  sequenceLength?: number;
  sequenceLengthVariation?: number;
  sequenceIdRange?: { idStart: number; idEnd: number };
}

/** Flags as commander hands them over (strings unless a flag is boolean or repeatable). */
export interface PerfFlags extends ConnectionFlags {
  model?: string;
  modelVersion?: string;
  modelRepository?: string;
  url?: string;
  protocol?: string;
  streaming?: boolean;
  concurrency?: string;
  concurrencyRange?: string;
  requestRateRange?: string;
  requestDistribution?: string;
  requestIntervals?: string;
  requestParameter?: string[];
  stringLength?: string;
  stringData?: string;
  batchSize?: string;
  measurementInterval?: string;
  measurementMode?: string;
  measurementRequestCount?: string;
  stabilityPercentage?: string;
  maxTrials?: string;
  percentile?: string;
  shape?: string[];
  inputData?: string;
  warmupRequestCount?: string;
  f?: string;
  json?: boolean;
  report?: string;
  profileExportFile?: string;
  /** perf_analyzer's --service-kind (triton only). */
  serviceKind?: string;
  inputTensorFormat?: string;
  outputTensorFormat?: string;
  latencyThreshold?: string;
  clientThreads?: string;
  sequenceLength?: string;
  sequenceLengthVariation?: string;
  sequenceIdRange?: string;
  sharedMemory?: string;
  outputSharedMemorySize?: string;
  traceLevel?: string[];
  traceRate?: string;
  traceCount?: string;
  logFrequency?: string;
}

/** perf_analyzer's default window for each output in shared memory. */
const DEFAULT_OUTPUT_SHARED_MEMORY_BYTES = 102400;

function positiveNumber(flag: string, text: string | undefined, fallback: number, opts: { integer?: boolean; min?: number; max?: number } = {}): number {
  if (text === undefined) return fallback;
  const value = Number(text);
  const min = opts.min ?? 1;
  const ok = text.trim() !== '' && Number.isFinite(value) && (!opts.integer || Number.isInteger(value)) && value >= min && (opts.max === undefined || value <= opts.max);
  if (!ok) {
    const kind = opts.integer ? 'a whole number' : 'a number';
    const range = opts.max !== undefined ? ` between ${min} and ${opts.max}` : ` of at least ${min}`;
    throw new UsageError(`${flag} "${text}" is not ${kind}${range}; e.g. ${flag} ${fallback}`);
  }
  return value;
}

/** --sequence-id-range start[:end] (perf_analyzer's): ids >= 1, end defaults to the largest exact id. */
function sequenceIdRange(text: string | undefined): { idStart: number; idEnd: number } | undefined {
  if (text === undefined) return undefined;
  const parts = text.split(':');
  const ids = parts.map((p) => Number(p));
  const ok = parts.length <= 2 && parts.every((p) => /^\d+$/.test(p.trim())) && ids.every((n) => Number.isSafeInteger(n) && n >= 1);
  const idStart = ids[0]!;
  const idEnd = ids[1] ?? Number.MAX_SAFE_INTEGER;
  if (!ok || idEnd < idStart) {
    throw new UsageError(`--sequence-id-range "${text}" is not start[:end] with whole numbers 1 <= start <= end; e.g. --sequence-id-range 1000:1999`);
  }
  return { idStart, idEnd };
}

function oneOf<T extends string>(flag: string, text: string | undefined, allowed: readonly T[], fallback: T): T {
  if (text === undefined) return fallback;
  if (!(allowed as readonly string[]).includes(text)) {
    throw new UsageError(`${flag} "${text}" is not one of ${allowed.join(', ')}; e.g. ${flag} ${fallback}`);
  }
  return text as T;
}

/** perf_analyzer's --shared-memory (none, system; cuda needs a GPU) and --output-shared-memory-size. */
function sharedMemoryOption(flags: PerfFlags): { outputBytes: number } | undefined {
  const kind = flags.sharedMemory ?? 'none';
  if (kind === 'cuda') throw new UsageError('--shared-memory cuda needs a GPU, which gebe has none of; use --shared-memory system');
  if (kind !== 'none' && kind !== 'system') throw new UsageError(`--shared-memory must be none, system or cuda, got '${kind}'`);
  const outputBytes = positiveNumber('--output-shared-memory-size', flags.outputSharedMemorySize, DEFAULT_OUTPUT_SHARED_MEMORY_BYTES, { integer: true, min: 1 });
  if (kind === 'none') {
    if (flags.outputSharedMemorySize !== undefined) throw new UsageError('--output-shared-memory-size applies with --shared-memory system');
    return undefined;
  }
  return { outputBytes };
}

/** perf_analyzer's --trace-level (repeatable), --trace-rate, --trace-count and --log-frequency; undefined when none is given. */
function traceOption(flags: PerfFlags): ServerTrace | undefined {
  const levels = flags.traceLevel ?? [];
  if (levels.length === 0 && flags.traceRate === undefined && flags.traceCount === undefined && flags.logFrequency === undefined) return undefined;
  for (const level of levels) {
    if (!isTraceLevel(level)) throw new UsageError(`--trace-level "${level}" is not one of ${TRACE_LEVELS.join(', ')}; e.g. --trace-level TIMESTAMPS`);
  }
  const model: TraceSettings = {};
  if (levels.length > 0) model.trace_level = levels;
  if (flags.traceRate !== undefined) model.trace_rate = String(positiveNumber('--trace-rate', flags.traceRate, 1000, { integer: true }));
  if (flags.traceCount !== undefined) model.trace_count = String(positiveNumber('--trace-count', flags.traceCount, -1, { integer: true, min: -1 }));
  const logFrequency = flags.logFrequency === undefined ? undefined : String(positiveNumber('--log-frequency', flags.logFrequency, 0, { integer: true, min: 0 }));
  return { model, ...(logFrequency !== undefined ? { logFrequency } : {}) };
}

function resolveTarget(flags: PerfFlags, cwd: string): PerfTargetSpec {
  const protocol = parseProtocol(flags.protocol, flags.url);
  if (flags.url !== undefined) {
    if (flags.modelRepository !== undefined) {
      throw new UsageError('-u/--url and --model-repository both given; use -u for a running server or --model-repository to run in process');
    }
    if (flags.streaming && protocol !== 'grpc') throw new UsageError('--streaming is gRPC\'s streaming API (ModelStreamInfer): add -i grpc');
    const sharedMemory = sharedMemoryOption(flags);
    const trace = traceOption(flags);
    const connection = parseConnection(flags, flags.url, protocol);
    const tensorFormat = tensorFormatOption(flags, protocol, sharedMemory !== undefined);
    return {
      kind: 'remote', url: flags.url, protocol, ...(flags.streaming ? { streaming: true } : {}), ...(sharedMemory ? { sharedMemory } : {}),
      ...(connection ? { connection } : {}), ...(trace ? { trace } : {}), ...(tensorFormat ? { tensorFormat } : {}),
    };
  }
  if (flags.inputTensorFormat !== undefined || flags.outputTensorFormat !== undefined) {
    throw new UsageError(`${flags.inputTensorFormat !== undefined ? '--input-tensor-format' : '--output-tensor-format'} is how tensors travel to a server over HTTP: add -u host:port`);
  }
  parseConnection(flags, undefined, protocol);  // -H or --ssl-* without -u: its usage error
  if (traceOption(flags)) throw new UsageError('--trace-level, --trace-rate, --trace-count and --log-frequency set a server\'s trace settings: add -u host:port');
  if (flags.streaming) throw new UsageError('--streaming needs a server: add -u host:port -i grpc');
  if (flags.sharedMemory !== undefined && flags.sharedMemory !== 'none') throw new UsageError('--shared-memory is how tensors reach a server: add -u host:port (in process they are never copied)');
  const repository = flags.modelRepository ?? (existsSync(path.join(cwd, 'model_repository')) ? 'model_repository' : undefined);
  if (repository === undefined) {
    throw new UsageError('no target: pass -u host:port for a running KServe v2 server, or --model-repository <dir> to run the model in process');
  }
  return { kind: 'in-process', repository: path.resolve(cwd, repository) };
}

/** perf_analyzer's --input-tensor-format / --output-tensor-format (binary or json; HTTP only). */
function tensorFormatOption(flags: PerfFlags, protocol: string, sharedMemory: boolean): TensorFormats | undefined {
  if (flags.inputTensorFormat === undefined && flags.outputTensorFormat === undefined) return undefined;
  const given = flags.inputTensorFormat !== undefined ? '--input-tensor-format' : '--output-tensor-format';
  if (protocol !== 'http') throw new UsageError(`${given} is for HTTP (-i http): gRPC carries tensors in its messages`);
  const format = { input: oneOf('--input-tensor-format', flags.inputTensorFormat, ['binary', 'json'] as const, 'binary'),
    output: oneOf('--output-tensor-format', flags.outputTensorFormat, ['binary', 'json'] as const, 'binary') };
  if (sharedMemory && (format.input === 'json' || format.output === 'json')) {
    throw new UsageError(`${given} json and --shared-memory system: with shared memory the tensors are in the shared region, not in the requests`);
  }
  return format;
}

function sequenceOptions(flags: PerfFlags, load: PerfOptions['load'], maxConcurrency: number): Pick<PerfOptions, 'sequenceLength' | 'sequenceLengthVariation' | 'sequenceIdRange'> {
  if (flags.sequenceLength === undefined && flags.sequenceIdRange === undefined && flags.sequenceLengthVariation === undefined) return {};
  if (load !== 'concurrency') {
    throw new UsageError('--sequence-length, --sequence-length-variation and --sequence-id-range drive sequences per virtual user, which needs --concurrency; gebe perf does not run sequences at a fixed request rate or on --request-intervals');
  }
  const range = sequenceIdRange(flags.sequenceIdRange);
  if (range && range.idEnd - range.idStart + 1 < maxConcurrency) {
    throw new UsageError(`--sequence-id-range ${flags.sequenceIdRange} gives ${range.idEnd - range.idStart + 1} ids, fewer than the concurrency ${maxConcurrency}: every live sequence needs its own id`);
  }
  return {
    ...(flags.sequenceLength !== undefined ? { sequenceLength: positiveNumber('--sequence-length', flags.sequenceLength, 20, { integer: true, max: 1_000_000 }) } : {}),
    ...(flags.sequenceLengthVariation !== undefined
      ? { sequenceLengthVariation: positiveNumber('--sequence-length-variation', flags.sequenceLengthVariation, 20, { min: 0, max: 100 }) }
      : {}),
    ...(range ? { sequenceIdRange: range } : {}),
  };
}

/**
 * Flags given that this run's other flags leave without effect, as perf_analyzer leaves them (a
 * script's command line still runs), each with why: they join the warning at start.
 */
function inertFlags(flags: PerfFlags, load: PerfOptions['load'], inputData: InputDataSpec): string[] {
  const inert: string[] = [];
  if (load === 'request-intervals' && flags.requestDistribution !== undefined) inert.push('--request-distribution (the --request-intervals file sets every gap)');
  if (inputData.kind === 'file') {
    if (flags.stringLength !== undefined) inert.push("--string-length (the --input-data file or directory gives every input's values)");
    if (flags.stringData !== undefined) inert.push("--string-data (the --input-data file or directory gives every input's values)");
  } else if (flags.stringLength !== undefined && inputData.strings?.data !== undefined) {
    inert.push('--string-length (--string-data gives every string)');
  } else if (flags.stringLength !== undefined && inputData.kind === 'zero') {
    inert.push("--string-length (gebe perf's zero data sends empty strings: add --input-data random for random strings of this length)");
  }
  return inert;
}

/** perf_analyzer's flags given that change nothing here; --service-kind other than triton is refused. */
function ignoredFlags(flags: PerfFlags, inert: string[]): { ignoredFlags?: string[] } {
  if (flags.serviceKind !== undefined && flags.serviceKind !== 'triton') {
    throw new UsageError(`--service-kind ${flags.serviceKind}: gebe perf measures a KServe v2 server (triton) with -u, or the model in process with --model-repository`);
  }
  const given = [...givenIgnoredFlags(flags, IGNORED_PERF_ANALYZER_FLAGS), ...inert];
  return given.length > 0 ? { ignoredFlags: given } : {};
}

/** What the sweep varies: --concurrency (the default), --request-rate-range or --request-intervals, one per run as perf_analyzer. */
function loadOption(flags: PerfFlags, cwd: string): Pick<PerfOptions, 'load' | 'levels' | 'requestIntervals'> {
  const concurrencyText = flags.concurrency ?? flags.concurrencyRange;
  if (flags.requestIntervals !== undefined) {
    const other = flags.concurrency !== undefined ? '--concurrency' : flags.concurrencyRange !== undefined ? '--concurrency-range'
      : flags.requestRateRange !== undefined ? '--request-rate-range' : undefined;
    if (other !== undefined) {
      throw new UsageError(`--request-intervals and ${other} both given: the intervals file is the run's schedule; drop ${other} (perf_analyzer takes one load mode per run too)`);
    }
    const file = path.resolve(cwd, flags.requestIntervals);
    const intervalsUs = readRequestIntervals(file);
    return { load: 'request-intervals', levels: [intervalsRate(intervalsUs)], requestIntervals: { file, intervalsUs } };
  }
  if (concurrencyText !== undefined && flags.requestRateRange !== undefined) {
    throw new UsageError('--concurrency and --request-rate-range both given; sweep one of them per run');
  }
  if (flags.requestRateRange !== undefined) return { load: 'request-rate', levels: parseLevels(REQUEST_RATE_SPEC, flags.requestRateRange) };
  return { load: 'concurrency', levels: parseLevels(CONCURRENCY_SPEC, concurrencyText ?? '1') };
}

/** --input-data, and what its generated data sends for BYTES inputs (--string-length, --string-data). */
function inputDataOption(flags: PerfFlags, cwd: string): InputDataSpec {
  // Checked whatever the data, so a typo fails the same way in every run.
  const length = positiveNumber('--string-length', flags.stringLength, DEFAULT_STRING_LENGTH, { integer: true, max: MAX_STRING_BYTES });
  if (flags.stringData !== undefined && Buffer.byteLength(flags.stringData, 'utf8') > MAX_STRING_BYTES) {
    throw new UsageError(`--string-data is ${Buffer.byteLength(flags.stringData, 'utf8')} bytes, more than gebe perf's limit of ${MAX_STRING_BYTES} for one string; give a shorter one`);
  }
  if (flags.inputData !== undefined && flags.inputData !== 'zero' && flags.inputData !== 'random') {
    return { kind: 'file', path: path.resolve(cwd, flags.inputData) };
  }
  const kind = flags.inputData === 'random' ? 'random' : 'zero';
  // An empty --string-data is no string data, as perf_analyzer reads it.
  const data = flags.stringData === '' ? undefined : flags.stringData;
  if (flags.stringLength === undefined && data === undefined) return { kind };
  return { kind, strings: { length, ...(data !== undefined ? { data } : {}) } };
}

export function parsePerfFlags(flags: PerfFlags, cwd: string): PerfOptions {
  if (!flags.model) throw new UsageError('-m/--model is required; name the model to measure, e.g. gebe perf -m resnet50 --concurrency 1:8');
  const { load, levels, requestIntervals } = loadOption(flags, cwd);
  const mode = oneOf('--measurement-mode', flags.measurementMode, ['time_windows', 'count_windows'] as const, 'time_windows');
  const percentile = flags.percentile === undefined ? undefined : positiveNumber('--percentile', flags.percentile, 99, { min: 1, max: 99.999 });
  const inputData = inputDataOption(flags, cwd);
  const requestParameters = parseRequestParameters(flags.requestParameter ?? []);
  const maxLevel = Math.max(...levels);
  const defaultThreads = load === 'concurrency' ? Math.min(availableParallelism(), maxLevel) : availableParallelism();
  return {
    model: flags.model,
    ...(flags.modelVersion !== undefined ? { modelVersion: String(positiveNumber('--model-version', flags.modelVersion, 1, { integer: true })) } : {}),
    target: resolveTarget(flags, cwd),
    load,
    levels,
    ...(requestIntervals ? { requestIntervals } : {}),
    ...(requestParameters ? { requestParameters } : {}),
    distribution: oneOf('--request-distribution', flags.requestDistribution, ['constant', 'poisson'] as const, 'constant'),
    batchSizes: parseBatchSizes(flags.batchSize ?? '1'),
    measurement: {
      intervalMs: positiveNumber('--measurement-interval', flags.measurementInterval, 5000, { integer: true }),
      mode,
      requestCount: positiveNumber('--measurement-request-count', flags.measurementRequestCount, 50, { integer: true }),
      stabilityPercentage: positiveNumber('-s/--stability-percentage', flags.stabilityPercentage, 10, { min: 0.001 }),
      maxTrials: positiveNumber('-r/--max-trials', flags.maxTrials, 10, { integer: true, min: 3 }),
      ...(percentile !== undefined ? { percentile } : {}),
      warmupRequestCount: positiveNumber('--warmup-request-count', flags.warmupRequestCount, 0, { integer: true, min: 0 }),
    },
    shapes: parseShapes(flags.shape ?? []),
    inputData,
    ...(flags.f !== undefined ? { csvFile: path.resolve(cwd, flags.f) } : {}),
    json: Boolean(flags.json),
    ...(flags.report !== undefined ? { reportFile: path.resolve(cwd, flags.report) } : {}),
    ...(flags.profileExportFile !== undefined ? { profileExportFile: path.resolve(cwd, flags.profileExportFile) } : {}),
    ...ignoredFlags(flags, inertFlags(flags, load, inputData)),
    ...(flags.latencyThreshold !== undefined ? { latencyThresholdMs: positiveNumber('--latency-threshold', flags.latencyThreshold, 100, { min: 0.001 }) } : {}),
    clientThreads: positiveNumber('--client-threads', flags.clientThreads, defaultThreads, { integer: true, min: 0 }),
    ...sequenceOptions(flags, load, maxLevel),
  };
}
