/**
 * The protocol-independent core of the server: metadata, readiness, statistics and inference, as
 * plain data. The HTTP and gRPC front ends only translate their wire formats to and from these calls,
 * so both answer the same questions with the same words.
 */
import { createRequire } from 'node:module';
import {
  InferError, type DecoupledResponse, type InferRequest, type InferResponse, type LoadedModel, type ModelStatistics, type TensorMetadata,
} from '../executor/types.js';
import { decoupledRefusal } from '../executor/decoupled.js';
import type { ModelConfig } from '../config/model-config.js';
import type { ServerMetrics } from './metrics.js';
import type { ModelManager } from './model-manager.js';
import { ProtocolError } from '../kserve/protocol-error.js';
import { classify } from '../executor/classification.js';
import type { LogControl } from './logger.js';
import { SystemSharedMemory } from './shared-memory.js';
import { applyLogSettings, logSettingsAnswer, type LogSettingValue } from './log-settings.js';
import type { TraceControl } from './trace-settings.js';
import type { TraceLink } from '../executor/types.js';

const require = createRequire(import.meta.url);
const { version: gebeVersion } = require('../../../package.json') as { version: string };

/**
 * Only extensions gebe implements are listed, in Triton's names: clients such as tritonclient's
 * read them to decide what to send (classification: an output's `classification` parameter;
 * sequence: sequence_id/sequence_start/sequence_end). 'logging' is added where the server's logger
 * can change (logSettings), 'trace' where the server traces (traceSettings). Not listed: the CUDA
 * shared-memory extension.
 */
export const SERVER_EXTENSIONS = [
  'classification', 'sequence', 'model_repository', 'model_repository(unload_dependents)', 'schedule_policy',
  'model_configuration', 'system_shared_memory', 'binary_tensor_data', 'parameters', 'statistics',
];

export interface ServerMetadata {
  name: string;
  version: string;
  extensions: string[];
}

export interface ModelMetadata {
  name: string;
  versions: string[];
  platform: string;
  inputs: TensorMetadata[];
  outputs: TensorMetadata[];
}

export class InferenceService {
  /** Set while shutting down: the server is live but no longer ready. */
  draining = false;
  /** The system shared-memory regions clients registered (the shared-memory extension). */
  readonly sharedMemory = new SystemSharedMemory();

  /** The server's name in its metadata (Triton's --id). */
  serverName = 'gebe';

  /** The trace extension's settings; absent where the server does not trace (set by GebeServer). */
  traceControl?: TraceControl;

  constructor(readonly models: ModelManager, private readonly metrics?: ServerMetrics, private readonly strictReadiness = true, private readonly logControl?: LogControl) {}

  serverMetadata(): ServerMetadata {
    const extensions = [...SERVER_EXTENSIONS];
    if (this.logControl) extensions.push('logging');
    if (this.traceControl) extensions.push('trace');
    return { name: this.serverName, version: gebeVersion, extensions };
  }

  /** The trace extension: applies `changes` (POST /v2[/models/{m}]/trace/setting, gRPC TraceSetting) and answers the settings of `model` or the global ones. */
  traceSettings(model: string | undefined, changes?: Record<string, unknown>): Record<string, string | string[]> {
    if (!this.traceControl) throw ProtocolError.badRequest('the server does not support tracing');
    if (changes) this.traceControl.update(model, changes);
    return this.traceControl.answer(model);
  }

  /** The logging extension: applies `changes` (POST /v2/logging, gRPC LogSettings) and answers the settings. */
  logSettings(changes: Record<string, unknown> = {}): Record<string, LogSettingValue> {
    if (!this.logControl) throw ProtocolError.badRequest('the server does not support dynamic logging');
    applyLogSettings(this.logControl, changes);
    return logSettingsAnswer(this.logControl);
  }

  /** As Triton: strict, every model that should be loaded is READY; not strict, the server is up and not stopping. */
  serverReady(): boolean {
    return !this.draining && (!this.strictReadiness || this.models.allReady());
  }

  modelReady(name: string, version?: string): boolean {
    return this.models.isReady(name, version);
  }

  modelMetadata(name: string, version?: string): ModelMetadata {
    const model = this.models.resolve(name, version);
    const config = this.models.config(name);
    return {
      name,
      versions: this.models.versions(name).filter((v) => v.state === 'READY').map((v) => v.version),
      platform: config.platform || config.backend || model.engine,
      inputs: model.inputs.map(copyTensor),
      outputs: model.outputs.map(copyTensor),
    };
  }

  modelConfig(name: string, version?: string): ModelConfig {
    this.models.versions(name); // 404 for unknown models
    if (version) this.models.resolve(name, version);
    return this.models.config(name);
  }

  /** The trace extension for a request of a model JS runs (executor models' requests are sampled natively). */
  private sampleJs(model: LoadedModel, request: InferRequest): { link: TraceLink; end: (done: Promise<unknown>) => void } | undefined {
    return this.traceControl && !model.nativeModel?.() ? this.traceControl.sampleJsRequest(model.name, model.version, request) : undefined;
  }

  /** Statistics of every ready model, or of one model (all its ready versions, or one). */
  statistics(name?: string, version?: string): ModelStatistics[] {
    if (!name) {
      if (version) throw ProtocolError.badRequest('a model version needs a model name');
      return this.models.readyModels().map(answeredStats);
    }
    if (version) return [answeredStats(this.models.resolve(name, version))];
    const ready = this.models.versions(name).filter((v) => v.model);
    if (ready.length === 0) this.models.resolve(name); // throws the not-ready error
    return ready.map((v) => answeredStats(v.model!));
  }

  /**
   * Runs one request with one response; the executor's native core checks it (the same check every
   * front end gets). `entry` words the refusal a decoupled model gives.
   */
  infer(name: string, version: string | undefined, request: InferRequest, classes: ReadonlyMap<string, number> | undefined, entry: 'HTTP' | 'ModelInfer'): Promise<InferResponse> {
    let model: LoadedModel;
    let response: Promise<InferResponse>;
    try {
      model = this.models.resolve(name, version);
    } catch (err) {
      return Promise.reject(err);
    }
    const trace = model.decoupled ? undefined : this.sampleJs(model, request);
    try {
      response = model.decoupled ? Promise.reject(decoupledRefusal(model.name, entry)) : model.infer(trace ? { ...request, trace: trace.link } : request);
    } catch (err) {
      response = Promise.reject(err);
    }
    if (classes && classes.size > 0) response = response.then((r) => this.classified(r, model, classes));
    this.countFailure(model, response);
    trace?.end(response);
    return response;
  }

  /**
   * Runs one request of a stream (gRPC ModelStreamInfer): `onResponse` gets each response, the
   * last with `final` (one for most models; any number, or only the final flag, for a decoupled one).
   */
  inferStream(name: string, version: string | undefined, request: InferRequest, classes: ReadonlyMap<string, number> | undefined,
    onResponse: (r: DecoupledResponse) => void): Promise<void> {
    let model: LoadedModel;
    try {
      model = this.models.resolve(name, version);
    } catch (err) {
      return Promise.reject(err);
    }
    if (!model.decoupled || !model.inferDecoupled) {
      return this.infer(name, version, request, classes, 'ModelInfer').then((response) => onResponse({ response, final: true }));
    }
    const classify = classes && classes.size > 0;
    const trace = this.sampleJs(model, request);
    let done: Promise<void>;
    try {
      done = model.inferDecoupled(trace ? { ...request, trace: trace.link } : request, (r) => {
        if (!classify || !r.response) return onResponse(r);
        let classified: DecoupledResponse;
        try {
          classified = { ...r, response: this.classified(r.response, model, classes) };
        } catch (err) {
          classified = { error: err instanceof InferError ? err : new InferError(String(err), 'INTERNAL'), final: r.final };
        }
        onResponse(classified);
      });
    } catch (err) {
      done = Promise.reject(err);
    }
    this.countFailure(model, done);
    trace?.end(done);
    return done;
  }

  /** Failures are counted on the side; the caller gets the model's own promise (one hop less). */
  private countFailure(model: LoadedModel, outcome: Promise<unknown>): void {
    const metrics = this.metrics;
    if (metrics) outcome.catch((err: unknown) => metrics.recordFailure(model.name, model.version, err instanceof InferError ? err.reason : 'OTHER'));
  }

  /** The classification extension: the outputs named in `classes` come back as their top k classes. */
  private classified(r: InferResponse, model: LoadedModel, classes: ReadonlyMap<string, number>): InferResponse {
    const labels = this.models.labels(model.name);
    const batched = model.maxBatchSize > 0;
    return { ...r, outputs: r.outputs.map((o) => (classes.has(o.name) ? classify(o, classes.get(o.name)!, labels.get(o.name), batched) : o)) };
  }
}

/** A model's statistics as answered: every field Triton's have, the response cache's zero where the model has none. */
function answeredStats(model: LoadedModel): ModelStatistics {
  const s = model.stats();
  const st = s.inference_stats;
  return { ...s, inference_stats: { ...st, cache_hit: st.cache_hit ?? { count: 0, ns: 0 }, cache_miss: st.cache_miss ?? { count: 0, ns: 0 } } };
}

function copyTensor(t: TensorMetadata): TensorMetadata {
  return { name: t.name, datatype: t.datatype, shape: [...t.shape] };
}

