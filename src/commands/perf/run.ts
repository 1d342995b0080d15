/**
 * gebe perf's work: connect to the target, check batch sizes and shapes before sending anything,
 * sweep, and hand the report to the reporters (table or --json on stdout, -f CSV, --report HTML).
 */
import { createRequire } from 'node:module';
import os from 'node:os';
import { GebeError } from '../../errors.js';
import { colors, type IO } from '../../io.js';
import { buildRequests, checkBatchSize, resolveSampleDims } from '../../core/perf/inputs.js';
import { LoadGenerator, type SettingResult } from '../../core/perf/load-generator.js';
import { summarize, toRow, type PerfReport, type RunEnvironment, type RunSettings } from '../../core/perf/report.js';
import type { ModelDescription } from '../../core/kserve/client/types.js';
import { formatCsv } from '../../core/perf/reporters/csv.js';
import { formatHtml } from '../../core/perf/reporters/html.js';
import { formatJson } from '../../core/perf/reporters/json.js';
import { attachProgress } from '../../core/perf/reporters/progress.js';
import { formatTable } from '../../core/perf/reporters/table.js';
import { openTarget } from '../../core/perf/targets.js';
import { applyServerTrace } from '../../core/perf/server-trace.js';
import { DEFAULT_SEQUENCE_ID_RANGE, DEFAULT_SEQUENCE_LENGTH, DEFAULT_SEQUENCE_LENGTH_VARIATION, type SequenceSpec } from '../../core/perf/sequences.js';
import type { LoadModelFn } from '../../core/perf/in-process-target.js';
import { executorLoader } from './executor-loader.js';
import { isDecoupled, type ModelConfig } from '../../core/config/model-config.js';
import { takesOneMessage } from '../../core/executor/decoupled.js';
import type { PerfOptions } from './options.js';
import { cannotWrite, prepareOutputFile, writeOutputFile } from '../output-file.js';
import { PROFILE_EXPORT_MAX_TIMESTAMPS, ProfileExport } from '../../core/perf/profile-export.js';

export interface PerfDeps {
  io: IO;
  now?: () => Date;
  /** The executor's model loader for in-process runs (default: the native executor facade). */
  loadModel?: () => Promise<LoadModelFn>;
  /** Sees the load generator before the sweep starts (its events), e.g. for tests. */
  observe?: (generator: LoadGenerator) => void;
}

export async function runPerf(opts: PerfOptions, deps: PerfDeps): Promise<PerfReport> {
  const { io } = deps;
  if (opts.ignoredFlags) io.stderr.write(`warning: perf_analyzer flags that gebe perf accepts without effect: ${opts.ignoredFlags.join('; ')}\n`);
  // A path that cannot be a file fails now, not after the sweep.
  if (opts.profileExportFile !== undefined) prepareOutputFile(opts.profileExportFile, 'profile export');
  const target = await openTarget(opts, { loadModel: deps.loadModel ?? executorLoader });
  let undoTrace: (() => Promise<void>) | undefined;
  try {
    const model = await target.describe();
    // In process a decoupled model's requests end at their final flag; a server needs streaming.
    if (opts.target.kind === 'remote' && !opts.target.streaming && isDecoupled(model.config as ModelConfig | undefined)) {
      throw new GebeError(takesOneMessage(model.name, opts.target.protocol === 'http' ? 'HTTP infer' : 'gRPC ModelInfer'), {
        hint: 'measure it with -u host:port -i grpc --streaming (as perf_analyzer does), or in process with --model-repository',
      });
    }
    for (const b of opts.batchSizes) checkBatchSize(model, b);
    if (opts.target.kind === 'remote' && opts.target.trace) undoTrace = await applyServerTrace(target, model.name, opts.target.trace, io.stderr);
    const sampleDims = resolveSampleDims(model, opts.shapes);
    const requestsByBatch = new Map(opts.batchSizes.map((b) => [b, buildRequests(model, b, sampleDims, opts.inputData)]));
    const sequences = sequencePlan(opts, model);
    const generator = new LoadGenerator(target, opts.measurement);
    const stopProgress = attachProgress(generator, io, !opts.json);
    // Unstable and failed settings are rows of their own (the generator goes on past them); a target
    // that stopped serving the model ends the sweep, and the settings measured before it are still
    // reported, so a long sweep is not lost to its last level; then the error ends the run.
    const results: SettingResult[] = [];
    generator.on('result', (r) => results.push(r));
    const profile = opts.profileExportFile !== undefined ? new ProfileExport() : undefined;
    profile?.attach(generator);
    deps.observe?.(generator);
    let failure: unknown;
    try {
      await generator.run({
        batchSizes: opts.batchSizes,
        levels: opts.levels,
        kind: opts.load === 'concurrency' ? 'concurrency' : opts.load === 'request-rate' ? 'rate' : 'intervals',
        distribution: opts.distribution,
        ...(opts.requestIntervals ? { intervalsUs: opts.requestIntervals.intervalsUs } : {}),
        clientThreads: opts.clientThreads,
        requests: (b) => requestsByBatch.get(b)!,
        ...sequences,
        ...(profile ? { recordBudget: PROFILE_EXPORT_MAX_TIMESTAMPS } : {}),
      });
    } catch (err) {
      failure = err;
    } finally {
      stopProgress();
    }
    if (!results.some((r) => r.status !== 'failed')) {
      throw failure ?? new GebeError(`no setting could be measured: ${results[0]?.note ?? 'the sweep was empty'}`);
    }
    const rows = results.map(toRow);
    const environment = runEnvironment();
    const report: PerfReport = {
      model: { name: model.name, version: model.version },
      ...(model.config ? { modelConfig: performanceConfig(model.config) } : {}),
      environment,
      settings: runSettings(opts, sequences.sequences),
      target: target.label,
      // As perf_analyzer reports custom intervals: a request rate, the one the intervals make.
      load: opts.load === 'concurrency' ? 'concurrency' : 'request-rate',
      mode: opts.target.kind === 'in-process' ? 'in-process' : opts.target.protocol,
      clientThreads: target.usesClientThreads ? opts.clientThreads : 0,
      rows,
      summary: summarize(rows, opts.measurement.percentile, opts.latencyThresholdMs),
      ...(failure !== undefined ? { incomplete: failure instanceof Error ? failure.message : String(failure) } : {}),
    };
    if (profile) await writeProfileExport(profile, opts, environment.gebeVersion, deps.io);
    await writeOutputs(report, opts, deps);
    if (failure !== undefined) throw failure;
    return report;
  } finally {
    await undoTrace?.();
    await target.close();
  }
}

/** The configuration fields that decide a model's performance (the rest is I/O the table already shows). */
const PERFORMANCE_FIELDS = ['platform', 'backend', 'max_batch_size', 'instance_group', 'dynamic_batching', 'sequence_batching', 'optimization', 'parameters'];

function performanceConfig(config: NonNullable<ModelDescription['config']>): Record<string, unknown> {
  return Object.fromEntries(PERFORMANCE_FIELDS.filter((k) => config[k] !== undefined).map((k) => [k, config[k]]));
}

function runEnvironment(): RunEnvironment {
  const { version } = createRequire(import.meta.url)('../../../package.json') as { version: string };
  return {
    gebeVersion: version,
    node: process.version,
    os: `${os.type()} ${os.release()} ${os.arch()}`,
    cpu: os.cpus()[0]?.model.trim() ?? 'unknown',
    cores: os.availableParallelism(),
    memoryGiB: Math.round((os.totalmem() / 2 ** 30) * 10) / 10,
  };
}

function runSettings(opts: PerfOptions, sequences: SequenceSpec | undefined): RunSettings {
  const m = opts.measurement;
  return {
    measurementMode: m.mode,
    measurementIntervalMs: m.intervalMs,
    measurementRequestCount: m.requestCount,
    stabilityPercentage: m.stabilityPercentage,
    maxTrials: m.maxTrials,
    ...(m.percentile !== undefined ? { percentile: m.percentile } : {}),
    inputData: opts.inputData.kind === 'file' ? opts.inputData.path : opts.inputData.kind,
    warmupRequestCount: m.warmupRequestCount,
    ...(opts.requestIntervals ? { requestIntervals: { file: opts.requestIntervals.file, intervals: opts.requestIntervals.intervalsUs.length } } : {}),
    ...(sequences ? { sequences } : {}),
  };
}

async function writeOutputs(report: PerfReport, opts: PerfOptions, deps: PerfDeps): Promise<void> {
  if (opts.csvFile) writeOutputFile(opts.csvFile, formatCsv(report), 'CSV');
  if (opts.reportFile) writeOutputFile(opts.reportFile, formatHtml(report, (deps.now ?? (() => new Date()))()), 'HTML report');
  deps.io.stdout.write(opts.json ? formatJson(report) : formatTable(report, colors(deps.io, 'stdout')));
}

/** --profile-export-file: written, and a warning on stderr when the bound left requests out. */
async function writeProfileExport(profile: ProfileExport, opts: PerfOptions, version: string, io: IO): Promise<void> {
  const file = opts.profileExportFile!;
  try {
    await profile.write(file, { version, serviceKind: opts.target.kind === 'in-process' ? 'triton_c_api' : 'triton' });
  } catch (err) {
    throw cannotWrite('profile export', file, err);
  }
  const dropped = profile.droppedRequests();
  if (dropped > 0) {
    io.stderr.write(`warning: the profile export ${file} holds the first ${profile.keptRequests()} measured requests; ` +
      `${dropped} more were measured and left out (it keeps at most ${PROFILE_EXPORT_MAX_TIMESTAMPS} timestamps: shorten the sweep to export all)\n`);
  }
}

/**
 * The sequences a run drives: the flags', or perf_analyzer's defaults for a model with
 * sequence_batching (whose requests must carry sequence ids); none otherwise.
 */
function sequencePlan(opts: PerfOptions, model: ModelDescription): { sequences?: SequenceSpec } {
  const isSequenceModel = model.config?.sequence_batching !== undefined;
  if (!isSequenceModel && opts.sequenceLength === undefined && opts.sequenceIdRange === undefined && opts.sequenceLengthVariation === undefined) return {};
  if (opts.load !== 'concurrency') {
    throw new GebeError(`model '${model.name}' has sequence_batching: gebe perf drives its sequences with --concurrency, not ${opts.load === 'request-rate' ? '--request-rate-range' : '--request-intervals'}`);
  }
  return {
    sequences: {
      length: opts.sequenceLength ?? DEFAULT_SEQUENCE_LENGTH,
      variation: opts.sequenceLengthVariation ?? DEFAULT_SEQUENCE_LENGTH_VARIATION,
      ...(opts.sequenceIdRange ?? DEFAULT_SEQUENCE_ID_RANGE),
    },
  };
}
