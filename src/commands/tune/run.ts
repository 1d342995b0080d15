/**
 * `gebe tune -m <model>`: measures the config as written (the baseline), searches the space
 * (quick or --exhaustive), checkpoints every trial, and reports the Pareto front and the winner;
 * --write puts the winner into config.pbtxt. Returns the report; no winner means exit 1.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { GebeError } from '../../errors.js';
import { colors, type IO } from '../../io.js';
import type { LoadModelFn } from '../../core/perf/in-process-target.js';
import { buildRequests, checkBatchSize, resolveSampleDims } from '../../core/perf/inputs.js';
import { attachProgress } from '../../core/perf/reporters/progress.js';
import { resolveRepositoryModel } from '../../core/perf/repository-model.js';
import { parseModelConfig } from '../../core/config/index.js';
import { candidateFromConfig, candidateKey, type Candidate } from '../../core/tune/candidate.js';
import { Checkpoint } from '../../core/tune/checkpoint.js';
import { formatTuneHtml } from '../../core/tune/html.js';
import { measureCandidate, type TrialSettings, type TrialTarget } from '../../core/tune/measure.js';
import { fetchServerConfig, loadOnServer } from '../../core/tune/server-control.js';
import type { ModelConfig } from '../../core/config/model-config.js';
import { normalizeBaseUrl } from '../../core/kserve/client/base-url.js';
import { HttpModelEndpoint } from '../../core/kserve/client/http-control.js';
import type { ModelDescription } from '../../core/kserve/client/types.js';
import { compareTrials, paretoFront, violation } from '../../core/tune/objective.js';
import type { TuneReport } from '../../core/tune/report.js';
import { search } from '../../core/tune/search.js';
import { buildSpace } from '../../core/tune/space.js';
import { formatTuneTable } from '../../core/tune/table.js';
import { measured, type Trial } from '../../core/tune/trial.js';
import { writeCandidate } from '../../core/tune/write-config.js';
import { executorLoader } from '../perf/executor-loader.js';
import type { TuneOptions } from './options.js';
import { writeOutputFile } from '../output-file.js';

export interface TuneDeps {
  io: IO;
  now?: () => Date;
  loadModel?: () => Promise<LoadModelFn>;
}

export async function runTune(opts: TuneOptions, deps: TuneDeps): Promise<TuneReport> {
  const setup = opts.url ? await remoteSetup(opts, opts.url) : await inProcessSetup(opts, await (deps.loadModel ?? executorLoader)());
  const { description } = setup;
  checkBatchSize(description, opts.batchSize);
  buildRequests(description, opts.batchSize, resolveSampleDims(description, opts.shapes), opts.inputData);
  try {
    return await tune(opts, deps, setup);
  } finally {
    // Leave the server with the config it had, not the last trial's.
    if (opts.url) await loadOnServer(opts.url, opts.model, setup.ref.config, opts.connection);
  }
}

interface Setup {
  ref: { version: string; config: ModelConfig };
  description: ModelDescription;
  gears: number[];
  /** config.pbtxt on this machine (what --write edits) and its text, when there is one. */
  configFile?: string;
  configText?: string;
  target: TrialTarget;
  label: string;
  /** What the checkpoint's trials depend on besides the measurement flags. */
  identity: unknown;
}

async function inProcessSetup(opts: TuneOptions, loadModel: LoadModelFn): Promise<Setup> {
  const ref = await resolveRepositoryModel(opts.repository!, opts.model, opts.modelVersion);
  const configFile = path.join(ref.dir, 'config.pbtxt');
  const configText = fs.readFileSync(configFile, 'utf8');
  // One load as written: the engine's gears (a .om's compiled set) and a check of the inputs before any trial.
  const probe = await loadModel(ref.dir, ref.version, ref.config);
  try {
    return {
      ref, gears: [...probe.gears], configFile, configText,
      description: { name: probe.name, version: probe.version, maxBatchSize: probe.maxBatchSize, inputs: [...probe.inputs], outputs: [...probe.outputs] },
      target: { kind: 'in-process', repository: opts.repository!, loadModel },
      label: `in process (${ref.dir})`,
      identity: { config: configText, modelFiles: modelFileStamps(path.join(ref.dir, ref.version)) },
    };
  } finally {
    await probe.unload();
  }
}

async function remoteSetup(opts: TuneOptions, url: string): Promise<Setup> {
  const endpoint = new HttpModelEndpoint(url, opts.model, opts.modelVersion, opts.connection);
  let description: ModelDescription;
  try {
    description = await endpoint.describe();
  } finally {
    await endpoint.close();
  }
  const config = await fetchServerConfig(url, opts.model, opts.connection);
  const configFile = opts.repository ? path.join(opts.repository, opts.model, 'config.pbtxt') : undefined;
  if (configFile && opts.write && !fs.existsSync(configFile)) throw new GebeError(`--write: ${configFile} does not exist`, { hint: 'point --model-repository at the local copy of the repository the server runs' });
  return {
    ref: { version: description.version, config }, description, gears: [],
    ...(configFile && fs.existsSync(configFile) ? { configFile, configText: fs.readFileSync(configFile, 'utf8') } : {}),
    target: { kind: 'remote', url, clientThreads: opts.clientThreads, config, ...(opts.connection ? { connection: opts.connection } : {}) },
    label: `${normalizeBaseUrl(url)} (reloaded per trial)`,
    identity: { url: normalizeBaseUrl(url), config },
  };
}

async function tune(opts: TuneOptions, deps: TuneDeps, setup: Setup): Promise<TuneReport> {
  const { io } = deps;
  const { ref, gears } = setup;
  const space = buildSpace({ maxBatchSize: Number(ref.config.max_batch_size ?? 0), gears, maxInstanceCount: opts.maxInstanceCount, delaysUs: opts.delaysUs, concurrencies: opts.concurrencies });
  const fingerprint = createHash('sha256').update(JSON.stringify({
    model: opts.model, version: ref.version, ...(setup.identity as object),
    batchSize: opts.batchSize, measurement: opts.measurement, shapes: opts.shapes, inputData: opts.inputData,
  })).digest('hex');
  const checkpoint = Checkpoint.open(opts.checkpointFile, fingerprint, opts.fresh);
  const order: string[] = [];
  const settings: TrialSettings = {
    target: setup.target, model: opts.model, version: ref.version, batchSize: opts.batchSize,
    shapes: opts.shapes, inputData: opts.inputData, measurement: opts.measurement,
    // Off a terminal tune writes one line per trial itself; perf's per-setting lines would repeat them.
    observe: (generator) => (io.stderrIsTTY ? attachProgress(generator, io, !opts.json) : () => {}),
  };
  const c = colors(io, 'stderr');
  const measure = async (candidate: Candidate): Promise<Trial> => {
    const key = candidateKey(candidate);
    if (!order.includes(key)) order.push(key);
    const done = checkpoint.trials.get(key);
    if (done && measured(done)) return done;
    const trial = await measureCandidate(candidate, settings);
    checkpoint.record(trial);
    if (!opts.json) io.stderr.write(c.dim(`trial ${checkpoint.trials.size}: ${key}: ${trial.error ? `failed: ${trial.error}` : `${trial.throughput.toFixed(1)} infer/s, p99 ${(trial.latencyUs.p99 / 1000).toFixed(2)} ms`}\n`));
    return trial;
  };
  const baseline: Trial[] = [];
  for (const concurrency of opts.concurrencies) baseline.push(await measure(candidateFromConfig(ref.config, concurrency)));
  await search(space, measure, { exhaustive: opts.exhaustive, trialLimit: opts.trialLimit, constraints: opts.constraints, objective: opts.objective }, () => checkpoint.trials.size);
  const trials = order.map((k) => checkpoint.trials.get(k)!);
  const ok = trials.filter(measured);
  if (ok.length === 0) throw new GebeError(`no trial of "${opts.model}" could be measured; the first failed with: ${trials[0]?.error}`, { hint: 'run gebe perf on the model with the same flags to see why' });
  const ranked = [...ok].sort((a, b) => compareTrials(a, b, opts.constraints, opts.objective));
  const best = ranked[0]!;
  const qualifies = violation(best, opts.constraints) === 0;
  const base = baseline.find((t) => t.candidate.concurrency === best.candidate.concurrency);
  const report: TuneReport = {
    model: { name: opts.model, version: ref.version },
    target: setup.label,
    search: opts.exhaustive ? 'exhaustive' : 'quick',
    constraints: opts.constraints,
    objective: opts.objective,
    baseline,
    trials,
    resumed: checkpoint.resumed,
    pareto: paretoFront(ok).map((t) => t.key),
    ...(qualifies ? { winner: best } : { closest: best }),
    ...(qualifies && base && measured(base) && base.throughput > 0 ? { speedup: best.throughput / base.throughput } : {}),
  };
  if (qualifies && opts.write && setup.configFile && setup.configText !== undefined) {
    const configFile = setup.configFile;
    const text = writeCandidate(setup.configText, configFile, best.candidate);
    const check = parseModelConfig(text, configFile).diagnostics.find((d) => d.severity === 'error');
    if (check) throw new GebeError(`the winner's settings would make ${configFile} invalid (${check.message}); it was not written`);
    fs.writeFileSync(configFile, text);
    report.written = configFile;
  }
  if (opts.reportFile) writeOutputFile(opts.reportFile, formatTuneHtml(report, (deps.now ?? (() => new Date()))()), 'HTML report');
  io.stdout.write(opts.json ? `${JSON.stringify(report, null, 2)}\n` : formatTuneTable(report, colors(io, 'stdout')));
  return report;
}

/** Name, size and mtime of the version's files: a changed model file invalidates the checkpoint. */
function modelFileStamps(versionDir: string): string[] {
  return fs.readdirSync(versionDir).sort().map((f) => {
    const s = fs.statSync(path.join(versionDir, f));
    return `${f}:${s.size}:${s.mtimeMs}`;
  });
}
