/**
 * Owns the loaded models: start-up loading, explicit load/unload, repository polling, and the
 * lookups every endpoint makes. A reload loads the new versions before the old ones are unloaded,
 * so requests in flight on the old model finish and new requests go to the new one; as in Triton,
 * a reload that fails leaves the versions that were serving untouched.
 */
import { isDecoupled, type ModelConfig } from '../config/model-config.js';
import type { LoadedModel } from '../executor/types.js';
import type { RateLimiter } from '../executor/rate-limiter.js';
import type { Logger } from './logger.js';
import type { ModelControl } from './model-control.js';
import type { ModelLookup } from './model-lookup.js';
import { parseLoadParameters, parseUnloadParameters } from './repository-parameters.js';
import type { ModelSource, RepositoryModel } from './model-source.js';
import { status as GrpcStatus } from '@grpc/grpc-js';
import { ProtocolError } from '../kserve/protocol-error.js';
import { cachesResponses, responseCacheRefusal, serveSupport } from './serve-support.js';
import type { ResponseCache } from './response-cache.js';
import { CachedModel } from './cached-model.js';
import { DEFAULT_LATENCY_METRICS, latencyRecording, type LatencyMetricsConfig } from './latency-metrics.js';
import { warmupAtLoad } from '../warmup/at-load.js';
import { loadOutputLabels, type OutputLabels } from './output-labels.js';
import { composingModelNames, ensureComposingLoaded, isEnsembleConfig, loadEnsemble, unloadDependentEnsembles } from '../ensemble/index.js';
import { isPythonModel, loadPythonModel } from '../python-backend/index.js';
import { completePythonConfig } from './auto-complete.js';

/** Triton's default --model-load-thread-count. */
export const DEFAULT_LOAD_THREADS = 4;

export type ModelState = 'READY' | 'UNAVAILABLE' | 'LOADING' | 'UNLOADING';
export type ControlMode = 'none' | 'poll' | 'explicit';

/** `options`: what the server gives every model it loads natively (its rate limiter). */
export type LoadModelFn = (modelDir: string, version: string, config: ModelConfig, options?: { rateLimiter?: RateLimiter }) => Promise<LoadedModel>;

export interface VersionStatus {
  name: string;
  version: string;
  state: ModelState;
  reason?: string;
  model?: LoadedModel;
  /** Config fields this version was loaded with that serve does not act on (serve-support.ts). */
  ignored?: string[];
}

interface ModelRecord {
  name: string;
  source?: RepositoryModel;
  config?: ModelConfig;
  /** The label files of its outputs (classification extension), read at load. */
  labels?: OutputLabels;
  versions: Map<string, VersionStatus>;
  /** A load or unload in progress: operations on one model run one after the other. */
  busy: Promise<void>;
  /** The load in progress, if one is: an ensemble that needs the model waits for it rather than loading it again. */
  loading?: Promise<void>;
  /** The fingerprint of the last load that failed: poll mode does not retry it until files change. */
  failedFingerprint?: string;
}

export interface IndexEntry {
  name: string;
  version?: string;
  state?: ModelState;
  reason?: string;
}

export class ModelManager implements ModelLookup, ModelControl {
  private readonly records = new Map<string, ModelRecord>();
  private pollTimer?: NodeJS.Timeout;
  private polling?: Promise<void>;
  private readonly readyListeners = new Set<(name: string) => void>();
  /** Models loaded only because an ensemble needed them (unload_dependents unloads them with it). */
  private readonly loadedForEnsemble = new Set<string>();
  /** Ensembles unloaded because a composing model went (ensemble → that model): they load again when it is back. */
  private readonly waitingEnsembles = new Map<string, string>();
  /** Set by stop(): start() and poll() load nothing more. */
  private stopped = false;
  /**
   * The server's response cache (`--cache-config local,size=<bytes>`), set before start(): models
   * whose config enables it are served through it. Absent: no model's answers are cached.
   */
  responseCache?: ResponseCache;
  /** --rate-limit execution_count: the instances of every model the executor runs take their resources here. */
  rateLimiter?: RateLimiter;
  /** False with Triton's --disable-auto-complete-config: a Python model's auto_complete_config is not run. */
  autoCompleteConfig = true;
  /** Models loaded at once at start (Triton's --model-load-thread-count, default 4). */
  loadThreads = DEFAULT_LOAD_THREADS;
  /** A version that fails to load is tried this many times more (Triton's --model-load-retry-count, default 0). */
  loadRetries = 0;
  /**
   * Which latency metrics the server exports (Triton's --metrics-config), set before start(): with
   * summaries or histograms, each model observes its requests' latencies from the moment it is READY.
   */
  latencyMetrics: LatencyMetricsConfig = DEFAULT_LATENCY_METRICS;

  constructor(
    private readonly source: ModelSource,
    private readonly loadModel: LoadModelFn,
    private readonly log: Logger,
    readonly mode: ControlMode = 'none',
  ) {}

  /**
   * Calls `listener(name)` whenever the READY versions of model `name` may have changed: after a
   * load swaps versions in, and before a version unloads. Returns the unsubscribe function.
   */
  onReadyChange(listener: (name: string) => void): () => void {
    this.readyListeners.add(listener);
    return () => this.readyListeners.delete(listener);
  }

  private notifyReady(name: string): void {
    for (const listener of this.readyListeners) listener(name);
  }

  /**
   * Loads what the mode asks for: every model, or (explicit) the named ones ('*' = all),
   * `loadThreads` at a time (the native loads run on libuv's pool, Python models start their
   * processes meanwhile).
   */
  async start(loadModels: string[] = []): Promise<void> {
    const names = await this.source.list();
    const wanted = this.mode === 'explicit' && !loadModels.includes('*') ? loadModels : names;
    const queue = [...wanted];
    const next = async (): Promise<void> => {
      for (let name = queue.shift(); name !== undefined && !this.stopped; name = queue.shift()) {
        if (!names.includes(name)) {
          this.recordFailure(name, `model '${name}' is not in the repository (found: ${names.join(', ') || 'none'})`);
          continue;
        }
        if (!this.hasReadyVersion(name) && !this.records.get(name)?.loading) await this.load(name).catch(() => undefined);
      }
    };
    await Promise.all(Array.from({ length: Math.max(1, Math.min(this.loadThreads, queue.length)) }, next));
    // Loaded first as an ensemble's step, and wanted on its own: not the ensemble's to unload.
    for (const name of wanted) this.loadedForEnsemble.delete(name);
  }

  /** Polls the repository every `seconds` (poll mode). */
  startPolling(seconds: number): void {
    this.pollTimer = setInterval(() => {
      if (!this.polling) this.polling = this.poll().catch((err) => this.log.error('repository poll failed', { error: String(err) })).finally(() => (this.polling = undefined));
    }, seconds * 1000);
    this.pollTimer.unref();
  }

  /** One poll: loads new models, reloads changed ones, unloads removed ones. */
  async poll(): Promise<void> {
    const names = await this.source.list();
    for (const name of names) {
      if (this.stopped) return;
      const record = this.records.get(name);
      if (!record) {
        await this.load(name).catch(() => undefined);
        continue;
      }
      if (record.config && record.source === undefined) continue; // loaded from a `config` override: keep it
      const fresh = await this.source.read(name);
      if (fresh && fresh.fingerprint !== record.source?.fingerprint && fresh.fingerprint !== record.failedFingerprint) {
        this.log.info('model changed on disk, reloading', { model: name });
        await this.load(name).catch(() => undefined);
      }
    }
    for (const name of [...this.records.keys()]) {
      if (names.includes(name)) continue;
      this.log.info('model removed from the repository, unloading', { model: name });
      await this.unload(name);
      this.records.delete(name);
      this.notifyReady(name);
    }
  }

  /**
   * Loads (or reloads) a model from the repository, or from `configOverride`. Resolves when every
   * version is READY; rejects with a ProtocolError naming the reason when any version failed.
   */
  load(name: string, configOverride?: ModelConfig): Promise<void> {
    this.loadedForEnsemble.delete(name);
    this.waitingEnsembles.delete(name);
    const record = this.record(name);
    const run = record.busy.then(() => this.doLoad(record, configOverride));
    record.busy = run.catch(() => undefined);
    record.loading = run;
    void record.busy.then(() => {
      if (record.loading === run) record.loading = undefined;
    });
    return run.then(() => this.reloadWaitingEnsembles(name));
  }

  /** As Triton: an ensemble that lost a composing model loads again once that model is back. */
  private async reloadWaitingEnsembles(name: string): Promise<void> {
    for (const [ensemble, composing] of [...this.waitingEnsembles]) {
      if (composing !== name || this.stopped) continue;
      this.log.info('a composing model is back: loading its ensemble again', { model: ensemble, composing: name });
      await this.load(ensemble).catch(() => undefined);
    }
  }

  /**
   * One version loaded and warmed up (as Triton, model_warmup runs before the version is READY and
   * a failed sample fails the load); a failure is tried `loadRetries` times more.
   */
  private async loadVersion(name: string, dir: string, config: ModelConfig, version: string): Promise<LoadedModel> {
    for (let attempt = 0; ; attempt++) {
      let loaded: LoadedModel | undefined;
      try {
        loaded = await this.loaderFor(config)(dir, version, config);
        await warmupAtLoad(loaded, config, dir, this.log);
        return loaded;
      } catch (err) {
        await loaded?.unload().catch(() => undefined);
        if (attempt >= this.loadRetries || this.stopped) throw err;
        this.log.warn('model failed to load, trying again', { model: name, version, attempt: attempt + 1, of: this.loadRetries, reason: err instanceof Error ? err.message : String(err) });
      }
    }
  }

  private async doLoad(record: ModelRecord, configOverride?: ModelConfig): Promise<void> {
    const name = record.name;
    const read = await this.source.read(name, configOverride);
    if (!read) {
      if (record.versions.size === 0) this.records.delete(name);
      throw ProtocolError.notFound(`failed to load '${name}': no model directory named '${name}' in the repository`);
    }
    const reasons: string[] = [];
    // A model serve does not run is refused before its (perhaps empty) version directories are looked at.
    const support = read.config ? serveSupport(read.config, { rateLimiting: this.rateLimiter !== undefined }) : { ignored: [] };
    if (support.refusal) {
      record.failedFingerprint = read.fingerprint;
      throw this.recordFailure(name, `failed to load '${name}': ${support.refusal}`, 400, read);
    }
    if (read.errors.length > 0 || !read.config) {
      const reason = read.errors.length > 0 ? read.errors.join('; ') : 'config.pbtxt could not be read';
      record.failedFingerprint = read.fingerprint;
      throw this.recordFailure(name, `failed to load '${name}': ${reason}`, 400, read);
    }
    if (read.versions.length === 0) {
      record.failedFingerprint = read.fingerprint;
      throw this.recordFailure(name, `failed to load '${name}': no version directory to serve under its version policy (expected ${read.dir}/<version>/ with a model file)`, 400, read);
    }
    let model = { ...read, config: read.config };
    if (isPythonModel(model.config) && this.autoCompleteConfig) {
      try {
        model = await completePythonConfig(this.source, model, this.log);
      } catch (err) {
        record.failedFingerprint = read.fingerprint;
        throw this.recordFailure(name, `failed to load '${name}': ${(err as Error).message}`, 400, read);
      }
    }
    if (isEnsembleConfig(model.config)) {
      try {
        // A composing model loading already (another of the start's loads) is waited for, not loaded twice.
        await ensureComposingLoaded(name, model.config, this.source, (n) => this.hasReadyVersion(n),
          (n) => this.records.get(n)?.loading ?? this.load(n).then(() => void this.loadedForEnsemble.add(n)));
      } catch (err) {
        record.failedFingerprint = model.fingerprint;
        throw this.recordFailure(name, `failed to load '${name}': ${(err as Error).message}`, 400, model);
      }
    }
    let labels: OutputLabels;
    try {
      labels = loadOutputLabels(model.dir, model.config);
    } catch (err) {
      record.failedFingerprint = model.fingerprint;
      throw this.recordFailure(name, `failed to load '${name}': ${(err as Error).message}`, 400, model);
    }
    const cacheRefusal = responseCacheRefusal(model.config, this.responseCache !== undefined);
    if (cacheRefusal) {
      record.failedFingerprint = model.fingerprint;
      throw this.recordFailure(name, `failed to load '${name}': ${cacheRefusal}`, 400, model);
    }
    if (support.ignored.length > 0) this.log.warn('config fields that gebe serve does not implement are ignored', { model: name, fields: support.ignored.join(', ') });
    const cached = cachesResponses(model.config);
    if (cached && !this.responseCache) {
      this.log.warn('response_cache is enabled in its config, but the server has no response cache: its answers are not cached', { model: name, hint: 'start gebe serve with --cache-config local,size=<bytes>' });
    }
    const next = new Map<string, VersionStatus>();
    for (const version of model.versions) {
      const status: VersionStatus = { name, version, state: 'LOADING', ignored: support.ignored.length > 0 ? support.ignored : undefined };
      next.set(version, status);
      if (!record.versions.has(version) || record.versions.get(version)?.state !== 'READY') record.versions.set(version, status);
      this.log.info('loading model', { model: name, version });
      try {
        status.model = await this.loadVersion(name, model.dir, model.config, version);
        if (cached && this.responseCache) status.model = new CachedModel(status.model, this.responseCache);
        const recording = latencyRecording(this.latencyMetrics, model.config);
        if (recording) status.model.latencyMetrics?.().enable(recording);
        status.state = 'READY';
        this.log.info('model ready', { model: name, version, engine: status.model.engine, instances: status.model.instanceCount });
      } catch (err) {
        status.state = 'UNAVAILABLE';
        status.reason = err instanceof Error ? err.message : String(err);
        reasons.push(`version ${version}: ${status.reason}`);
        this.log.error('model failed to load', { model: name, version, reason: status.reason });
      }
    }
    const old = record.versions;
    if (reasons.length > 0 && [...old.values()].some((v) => v.state === 'READY')) {
      // A failed reload: what served before keeps serving (the failed versions show their reason
      // beside it); the versions this attempt did load go again.
      record.failedFingerprint = model.fingerprint;
      await Promise.all([...next.values()].filter((v) => v.model).map((v) => this.unloadVersion(v)));
      for (const v of next.values()) if (old.get(v.version) === v && v.state !== 'UNAVAILABLE') old.delete(v.version);
      throw new ProtocolError(`failed to load '${name}': ${reasons.join('; ')}; the versions that were serving keep serving`, 400);
    }
    // Swap in the new versions, then let the old ones drain and unload.
    record.failedFingerprint = undefined;
    record.versions = next;
    record.source = configOverride ? undefined : model;
    record.config = model.config;
    record.labels = labels;
    this.notifyReady(name);
    await Promise.all([...old.values()].filter((v) => v.model && next.get(v.version)?.model !== v.model).map((v) => this.unloadVersion(v)));
    if (reasons.length > 0) throw new ProtocolError(`failed to load '${name}': ${reasons.join('; ')}`, 400);
  }

  /** The loader for a config: ensembles run on the other models of this server, the rest natively. */
  private loaderFor(config: ModelConfig): LoadModelFn {
    if (isEnsembleConfig(config)) return (_dir, version, cfg) => loadEnsemble(cfg, version, this);
    // backend "python" runs model.py in gebe's stub processes; their BLS requests find models here.
    if (isPythonModel(config)) {
      return (dir, version, cfg) => loadPythonModel(dir, version, cfg, { log: this.log, lookup: this, control: this, ...(this.rateLimiter ? { rateLimiter: this.rateLimiter } : {}) });
    }
    const rateLimiter = this.rateLimiter;
    return rateLimiter ? (dir, version, cfg) => this.loadModel(dir, version, cfg, { rateLimiter }) : this.loadModel;
  }

  private hasReadyVersion(name: string): boolean {
    const record = this.records.get(name);
    return record !== undefined && this.readyVersions(record).length > 0;
  }

  /**
   * Unloads every version of a model; in-flight requests finish first. The ensembles that run it
   * become unavailable with Triton's reason (`reason` is what an unloaded model's status says).
   * `dependents` (Triton's unload_dependents): an ensemble's composing models that were loaded only
   * for it, and that no other READY ensemble runs, unload too.
   */
  unload(name: string, reason = 'unloaded', options: { dependents?: boolean } = {}): Promise<void> {
    this.waitingEnsembles.delete(name);
    const record = this.records.get(name);
    if (!record) return Promise.reject(ProtocolError.badRequest(`failed to unload '${name}', no model with that name is loaded`));
    const run = record.busy.then(async () => {
      const versions = [...record.versions.values()];
      await Promise.all(versions.map((v) => this.unloadVersion(v)));
      for (const v of versions) {
        v.state = 'UNAVAILABLE';
        v.reason = reason;
      }
    });
    record.busy = run.catch(() => undefined);
    return run
      .then(() => unloadDependentEnsembles(name, this.ensembleConfigs(), (e, why) => this.unload(e, why).then(() => void this.waitingEnsembles.set(e, name)), this.log))
      .then(() => (options.dependents && record.config ? this.unloadComposing(record.config) : undefined));
  }

  private async unloadComposing(config: ModelConfig): Promise<void> {
    const stillUsed = new Set([...this.ensembleConfigs().values()].flatMap((c) => composingModelNames(c)));
    for (const model of composingModelNames(config)) {
      if (!this.loadedForEnsemble.has(model) || stillUsed.has(model) || !this.hasReadyVersion(model)) continue;
      this.loadedForEnsemble.delete(model);
      await this.unload(model, 'unloaded', { dependents: true });
    }
  }

  /** The READY ensembles' configs by name (for unloading the ones a composing model leaves). */
  private ensembleConfigs(): Map<string, ModelConfig> {
    const out = new Map<string, ModelConfig>();
    for (const r of this.records.values()) if (r.config && isEnsembleConfig(r.config) && this.readyVersions(r).length > 0) out.set(r.name, r.config);
    return out;
  }

  private async unloadVersion(status: VersionStatus): Promise<void> {
    const model = status.model;
    if (!model) return;
    status.state = 'UNLOADING';
    status.model = undefined;
    this.notifyReady(status.name);
    try {
      await model.unload();
      this.log.info('model unloaded', { model: status.name, version: status.version });
    } catch (err) {
      this.log.error('model failed to unload cleanly', { model: status.name, version: status.version, reason: String(err) });
    }
  }

  /** Stops polling and unloads everything (graceful shutdown). */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.pollTimer) clearInterval(this.pollTimer);
    await this.polling;
    await Promise.all([...this.records.keys()].map((name) => this.unload(name).catch(() => undefined)));
  }

  private record(name: string): ModelRecord {
    let record = this.records.get(name);
    if (!record) {
      record = { name, versions: new Map(), busy: Promise.resolve() };
      this.records.set(name, record);
    }
    return record;
  }

  private recordFailure(name: string, reason: string, status: 400 | 404 = 400, model?: RepositoryModel): ProtocolError {
    const record = this.record(name);
    const versions = model?.versions.length ? model.versions : [''];
    for (const version of versions) {
      const existing = record.versions.get(version);
      if (existing?.state === 'READY') continue; // a failed reload keeps the version that works
      record.versions.set(version, { name, version, state: 'UNAVAILABLE', reason });
    }
    if (model) record.config ??= model.config;
    this.log.error('model unavailable', { model: name, reason });
    return new ProtocolError(reason, status);
  }

  /** The READY model for a request, or a 404/503 ProtocolError in Triton's words. */
  resolve(name: string, version?: string): LoadedModel {
    const record = this.records.get(name);
    if (!record) throw ProtocolError.notFound(`Request for unknown model: '${name}' is not found`);
    if (version) {
      const status = record.versions.get(version);
      if (!status) throw ProtocolError.notFound(`Request for unknown model: '${name}' version ${version} is not found`);
      if (status.state !== 'READY' || !status.model) {
        throw ProtocolError.unavailable(`Request for unknown model: '${name}' version ${version} is not at ready state${status.reason ? `: ${status.reason}` : ''}`);
      }
      return status.model;
    }
    // The highest READY version, found without sorting (this runs on every request).
    let best: VersionStatus | undefined;
    for (const v of record.versions.values()) {
      if (v.state === 'READY' && v.model && (!best || Number(v.version) > Number(best.version))) best = v;
    }
    if (!best) {
      const reason = [...record.versions.values()].map((v) => v.reason).find(Boolean);
      throw ProtocolError.unavailable(`Request for unknown model: '${name}' has no available versions${reason ? ` (${reason})` : ''}`);
    }
    return best.model!;
  }

  requestLoad(name: string, parameters: unknown): Promise<void> {
    try {
      const { config } = parseLoadParameters(parameters, name);
      this.requireExplicitControl('load');
      return this.load(name, config);
    } catch (err) {
      return Promise.reject(err);
    }
  }

  requestUnload(name: string, parameters: unknown): Promise<void> {
    try {
      const { unloadDependents } = parseUnloadParameters(parameters, name);
      this.requireExplicitControl('unload');
      return this.unload(name, undefined, { dependents: unloadDependents });
    } catch (err) {
      return Promise.reject(err);
    }
  }

  isReadyModel(name: string, version?: string): boolean {
    try {
      return this.isReady(name, version);
    } catch {
      return false;
    }
  }

  /** As in Triton, what is loaded changes at a request only in explicit model control mode. */
  private requireExplicitControl(what: 'load' | 'unload'): void {
    if (this.mode !== 'explicit') {
      throw new ProtocolError(`explicit model ${what} is not allowed if polling is enabled or model control is off (start the server with --model-control-mode explicit)`, 400, GrpcStatus.FAILED_PRECONDITION);
    }
  }

  /** Whether a model (or one version) is ready; throws 404 for unknown names only. */
  isReady(name: string, version?: string): boolean {
    try {
      this.resolve(name, version);
      return true;
    } catch (err) {
      if (err instanceof ProtocolError && err.httpStatus === 404) throw err;
      return false;
    }
  }

  /**
   * The config a model was loaded with (404 for unknown models), completed as Triton completes it:
   * an ensemble with a decoupled step says model_transaction_policy { decoupled: true }, so clients
   * know to stream.
   */
  config(name: string): ModelConfig {
    const record = this.records.get(name);
    if (!record?.config) throw ProtocolError.notFound(`Request for unknown model: '${name}' is not found`);
    const decoupled = [...record.versions.values()].some((v) => v.model?.decoupled === true);
    return decoupled && !isDecoupled(record.config) ? { ...record.config, model_transaction_policy: { decoupled: true } } : record.config;
  }

  /** The labels of a model's outputs, by output name (empty when none has a label_filename). */
  labels(name: string): OutputLabels {
    return this.records.get(name)?.labels ?? new Map();
  }

  /** Every known version of a model, for metadata and status. */
  versions(name: string): VersionStatus[] {
    const record = this.records.get(name);
    if (!record) throw ProtocolError.notFound(`Request for unknown model: '${name}' is not found`);
    return sortVersions([...record.versions.values()].filter((v) => v.version !== ''));
  }

  /** All loaded models (every READY version), for statistics and metrics. */
  readyModels(): LoadedModel[] {
    return [...this.records.values()].flatMap((r) => this.readyVersions(r).map((v) => v.model!));
  }

  /** Every model in the repository and every version the server knows, for the repository index. */
  async index(readyOnly = false): Promise<IndexEntry[]> {
    const names = new Set([...(await this.source.list()), ...this.records.keys()]);
    const entries: IndexEntry[] = [];
    for (const name of [...names].sort()) {
      const record = this.records.get(name);
      if (!record || record.versions.size === 0) {
        if (!readyOnly) entries.push({ name });
        continue;
      }
      for (const v of sortVersions([...record.versions.values()])) {
        if (readyOnly && v.state !== 'READY') continue;
        entries.push({ name, version: v.version || undefined, state: v.state, reason: v.reason });
      }
    }
    return entries;
  }

  /** The rows of the start-up table: one per known version. */
  statuses(): VersionStatus[] {
    return [...this.records.values()].flatMap((r) => sortVersions([...r.versions.values()]));
  }

  /** Whether every model that should be loaded is READY (server readiness). */
  allReady(): boolean {
    return [...this.records.values()].every((r) => [...r.versions.values()].every((v) => v.state === 'READY' || v.reason === 'unloaded'));
  }

  private readyVersions(record: ModelRecord): VersionStatus[] {
    return sortVersions([...record.versions.values()].filter((v) => v.state === 'READY' && v.model));
  }
}

function sortVersions(list: VersionStatus[]): VersionStatus[] {
  return list.sort((a, b) => Number(a.version) - Number(b.version));
}
