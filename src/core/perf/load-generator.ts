/**
 * The load generator: sweeps batch sizes × load levels, measures each in windows until
 * perf_analyzer's stability rule holds, and emits events (start, setting, tick, window, result, done).
 * It never prints; reporters listen.
 *
 * A setting that does not stabilise within -r windows is kept, marked unstable (the merge of its last
 * windows), and one whose requests fail is kept, marked failed, with the error; either way the
 * sweep goes on, as perf_analyzer's does. Only a target that no longer describes the model (the
 * server went away, the model was unloaded) ends the sweep early.
 */
import { EventEmitter } from 'node:events';
import { performance } from 'node:perf_hooks';
import type { ModelEndpoint, RequestInputs } from '../kserve/client/types.js';
import { splitPlan, type DriverHandle } from './driver-handle.js';
import type { SequenceLoad, SequenceSpec } from './sequences.js';
import type { DriverWindow, LoadPlan } from './driver.js';
import { judgedLatencyUs, mergeMeasurements, windowFromDrivers, type Measurement } from './measurement.js';
import { snapshotDelta, type ServerSnapshot } from './server-breakdown.js';
import type { ModelConfig } from '../config/model-config.js';
import { composingModelNames, isEnsembleConfig } from '../ensemble/plan.js';
import { judgeStability, STABILITY_WINDOWS, type StabilityVerdict } from './stability.js';
import { epochMs, type RequestLogData } from './request-log.js';

export interface MeasurementOptions {
  intervalMs: number;
  mode: 'time_windows' | 'count_windows';
  /** Requests per window in count_windows mode. */
  requestCount: number;
  stabilityPercentage: number;
  maxTrials: number;
  percentile?: number;
  warmupRequestCount: number;
}

/** A target the generator can load: the model's endpoint and a way to make drivers for a payload. */
export interface LoadTarget {
  readonly label: string;
  readonly endpoint: ModelEndpoint;
  /** Drivers (threads or in-thread loops) that will send these requests; count is a hint. */
  createDrivers(requests: RequestInputs[], count: number): Promise<DriverHandle[]>;
}

export interface Setting {
  batchSize: number;
  concurrency?: number;
  requestRate?: number;
}

export type SettingStatus = 'stable' | 'unstable' | 'failed';

export interface SettingResult {
  setting: Setting;
  status: SettingStatus;
  /** The merge of the last (stable, or for an unstable setting the last tried) windows; none when failed. */
  measurement?: Measurement;
  windows: Measurement[];
  /** Why the setting is unstable or failed. */
  note?: string;
  /** What to change, for an unstable setting (the same for every such setting of a run). */
  hint?: string;
}

export interface SweepPlan {
  batchSizes: number[];
  /** Concurrency levels or request rates (per second), in order; for intervals, the one rate they make. */
  levels: number[];
  /** intervals: --request-intervals' gaps, one setting per batch size, reported as its request rate (as perf_analyzer does). */
  kind: 'concurrency' | 'rate' | 'intervals';
  distribution: 'constant' | 'poisson';
  /** The gaps (µs) between requests, cycled, for kind intervals. */
  intervalsUs?: readonly number[];
  /** Client threads to spread the load over (network targets). */
  clientThreads: number;
  /** The requests to send per batch size. */
  requests: (batchSize: number) => RequestInputs[];
  /** Sequence models: every virtual user runs sequences (concurrency only). */
  sequences?: SequenceSpec;
  /**
   * Keep each measured request's timestamps (--profile-export-file), at most this many over the
   * run (a request's start and each of its responses count one each); the window events carry them.
   */
  recordBudget?: number;
}

/** A window's requests, one log per driver, and the window's bounds (ms since the epoch). */
export interface WindowRequests {
  logs: RequestLogData[];
  startMs: number;
  endMs: number;
}

export interface LoadGeneratorEvents {
  start: [{ target: string; settings: Setting[] }];
  setting: [{ setting: Setting; index: number; total: number }];
  tick: [{ setting: Setting; trial: number; elapsedMs: number; completed: number }];
  window: [{ setting: Setting; trial: number; measurement: Measurement; verdict: StabilityVerdict; requests?: WindowRequests }];
  result: [SettingResult];
  done: [SettingResult[]];
}

const TICK_MS = 100;
const COUNT_POLL_MS = 10;

/** The plan's sequences for `users` virtual users, numbered from 0. */
function sequenceLoad(spec: SequenceSpec | undefined, users: number): { sequences?: SequenceLoad } {
  return spec ? { sequences: { ...spec, firstUser: 0, users } } : {};
}

/** What the drivers run for one level of the sweep. */
function loadPlanAt(plan: SweepPlan, level: number): LoadPlan {
  if (plan.kind === 'concurrency') return { kind: 'concurrency', concurrency: level, ...sequenceLoad(plan.sequences, level) };
  if (plan.kind === 'rate') return { kind: 'rate', requestsPerSecond: level, distribution: plan.distribution };
  if (!plan.intervalsUs?.length) throw new Error('a sweep of kind intervals needs its intervalsUs');
  return { kind: 'intervals', intervalsUs: plan.intervalsUs };
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export class LoadGenerator extends EventEmitter<LoadGeneratorEvents> {
  private failure?: unknown;
  /** An ensemble's composing models, whose statistics each window reads too. */
  private composing: string[] = [];
  /** Timestamps the request logs may still keep (--profile-export-file); undefined: none kept. */
  private recordBudget?: number;

  constructor(private readonly target: LoadTarget, private readonly options: MeasurementOptions) {
    super();
  }

  async run(plan: SweepPlan): Promise<SettingResult[]> {
    const settings: Setting[] = plan.batchSizes.flatMap((batchSize) => plan.levels.map((level) =>
      plan.kind === 'concurrency' ? { batchSize, concurrency: level } : { batchSize, requestRate: level }));
    this.composing = await this.composingModels();
    this.recordBudget = plan.recordBudget;
    this.emit('start', { target: this.target.label, settings });
    const results: SettingResult[] = [];
    for (const batchSize of plan.batchSizes) {
      const requests = plan.requests(batchSize);
      const maxLevel = Math.max(...plan.levels);
      const threads = plan.kind === 'concurrency' ? Math.min(plan.clientThreads, maxLevel) : plan.clientThreads;
      const drivers = await this.target.createDrivers(requests, threads);
      for (const d of drivers) d.onError((err) => { this.failure ??= err; });
      try {
        await this.warmup(drivers, plan.sequences);
        for (const level of plan.levels) {
          const setting = settings.find((s) => s.batchSize === batchSize && (s.concurrency ?? s.requestRate) === level)!;
          this.emit('setting', { setting, index: results.length, total: settings.length });
          const result = await this.measureOrMark(drivers, setting, loadPlanAt(plan, level));
          results.push(result);
          this.emit('result', result);
        }
      } finally {
        await Promise.all(drivers.map((d) => d.stop().catch(() => {})));
        await Promise.all(drivers.map((d) => d.close()));
      }
    }
    this.emit('done', results);
    return results;
  }

  /** Measures a setting; a failure is the setting's own unless the target stopped serving the model. */
  private async measureOrMark(drivers: DriverHandle[], setting: Setting, loadPlan: LoadPlan): Promise<SettingResult> {
    this.failure = undefined;
    try {
      return await this.measureSetting(drivers, setting, loadPlan);
    } catch (err) {
      this.failure = undefined;
      await this.target.endpoint.describe().catch(() => { throw err; });
      return { setting, status: 'failed', windows: [], note: err instanceof Error ? err.message : String(err) };
    }
  }

  private throwIfFailed(): void {
    if (this.failure !== undefined) throw this.failure;
  }

  /** Sends --warmup-request-count requests one at a time before measuring (compiles shapes, fills caches). */
  private async warmup(drivers: DriverHandle[], sequences: SequenceSpec | undefined): Promise<void> {
    const count = this.options.warmupRequestCount;
    if (count <= 0) return;
    const driver = drivers[0]!;
    await driver.snapshot();
    driver.start({ kind: 'concurrency', concurrency: 1, ...sequenceLoad(sequences, 1) });
    while (driver.completed() < count) {
      this.throwIfFailed();
      await sleep(COUNT_POLL_MS);
    }
    await driver.stop();
    this.throwIfFailed();
  }

  private async measureSetting(drivers: DriverHandle[], setting: Setting, loadPlan: LoadPlan): Promise<SettingResult> {
    const shares = splitPlan(loadPlan, drivers.length).map((share, _, all) =>
      this.recordBudget === undefined ? share : { ...share, record: { budget: Math.floor(this.recordBudget / all.length) } });
    const active = drivers.slice(0, shares.length);
    shares.forEach((share, i) => active[i]!.start(share));
    try {
      let [, before] = await Promise.all([Promise.all(active.map((d) => d.snapshot())), this.statistics()]);
      let windowStart = performance.now();
      const windows: Measurement[] = [];
      for (let trial = 1; trial <= this.options.maxTrials; trial++) {
        await this.waitForWindow(active, setting, trial, windowStart);
        const windowEnd = performance.now();
        const [parts, after] = await Promise.all([Promise.all(active.map((d) => d.snapshot())), this.statistics()]);
        this.throwIfFailed();
        const server = before && after ? snapshotDelta(before, after) : undefined;
        const measurement = windowFromDrivers(parts, windowEnd - windowStart, setting.batchSize, server, this.options.percentile);
        windows.push(measurement);
        const verdict = judgeStability(
          windows.map((w) => ({ throughput: w.throughput, latencyUs: judgedLatencyUs(w) })),
          this.options.stabilityPercentage,
        );
        this.emit('window', { setting, trial, measurement, verdict, ...this.windowRequests(parts, windowStart, windowEnd) });
        if (verdict.stable) {
          return { setting, status: 'stable', windows, measurement: mergeMeasurements(windows.slice(-STABILITY_WINDOWS), setting.batchSize, this.options.percentile) };
        }
        before = after;
        windowStart = windowEnd;
      }
      return {
        setting, status: 'unstable', windows, ...this.unstable(windows),
        measurement: mergeMeasurements(windows.slice(-STABILITY_WINDOWS), setting.batchSize, this.options.percentile),
      };
    } finally {
      await Promise.all(active.map((d) => d.stop()));
    }
  }

  /** A window's request logs, when the run keeps them; what they hold comes off the run's budget. */
  private windowRequests(parts: DriverWindow[], start: number, end: number): { requests?: WindowRequests } {
    const logs = parts.flatMap((p) => (p.log ? [p.log] : []));
    if (this.recordBudget === undefined || logs.length === 0) return {};
    for (const log of logs) this.recordBudget -= log.starts.length + log.responses.length;
    return { requests: { logs, startMs: epochMs(start), endMs: epochMs(end) } };
  }

  /** The model's statistics and, for an ensemble, its composing models' (as perf_analyzer reads them). */
  private async statistics(): Promise<ServerSnapshot | undefined> {
    const endpoint = this.target.endpoint;
    const [model, ...composing] = await Promise.all([endpoint.statistics(), ...this.composing.map((name) => endpoint.statisticsOf?.(name))]);
    return model ? { model, composing: composing.filter((s) => s !== undefined) } : undefined;
  }

  private async composingModels(): Promise<string[]> {
    // A target that cannot describe the model fails the first setting with its own error.
    const config = (await this.target.endpoint.describe().catch(() => undefined))?.config as ModelConfig | undefined;
    return config && isEnsembleConfig(config) ? composingModelNames(config) : [];
  }

  private async waitForWindow(drivers: DriverHandle[], setting: Setting, trial: number, start: number): Promise<void> {
    const completed = () => drivers.reduce((a, d) => a + d.completed(), 0);
    let lastTick = start;
    for (;;) {
      this.throwIfFailed();
      const now = performance.now();
      const elapsed = now - start;
      if (this.options.mode === 'time_windows') {
        if (elapsed >= this.options.intervalMs) return;
      } else if (completed() >= this.options.requestCount) {
        return;
      }
      if (now - lastTick >= TICK_MS) {
        lastTick = now;
        this.emit('tick', { setting, trial, elapsedMs: elapsed, completed: completed() });
      }
      const wait = this.options.mode === 'time_windows'
        ? Math.min(TICK_MS, this.options.intervalMs - elapsed)
        : COUNT_POLL_MS;
      await sleep(Math.max(1, wait));
    }
  }

  private unstable(windows: Measurement[]): { note: string; hint: string } {
    const verdict = judgeStability(windows.map((w) => ({ throughput: w.throughput, latencyUs: judgedLatencyUs(w) })), this.options.stabilityPercentage);
    const pct = (v: number) => (Number.isFinite(v) ? `${v.toFixed(1)}%` : 'a window with no completed requests');
    const o = this.options;
    const windowFlag = o.mode === 'time_windows' ? `--measurement-interval (now ${o.intervalMs} ms)` : `--measurement-request-count (now ${o.requestCount})`;
    return {
      note: `did not stabilise within ${o.maxTrials} windows ` +
        `(last ${STABILITY_WINDOWS}: throughput varied ${pct(verdict.throughputSpreadPct)}, latency ${pct(verdict.latencySpreadPct)}, allowed ${o.stabilityPercentage}%)`,
      hint: `for stable figures raise ${windowFlag}, -s/--stability-percentage or -r/--max-trials (now ${o.maxTrials})`,
    };
  }
}
