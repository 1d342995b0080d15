/**
 * The model loaded into the executor in this process as a load target: no network, the model's
 * own capacity. One in-thread driver suffices because the executor's scheduler and instances run
 * on native threads; the JS side only enqueues and collects completions.
 */
import type { ModelConfig } from '../config/model-config.js';
import type { InferRequest, LoadedModel, ModelStatistics } from '../executor/types.js';
import { runToFinal } from '../executor/decoupled.js';
import type { InferClient, ModelDescription, ModelEndpoint, RequestInputs, RequestParameters } from '../kserve/client/types.js';
import { InThreadDriver, type DriverHandle } from './driver-handle.js';
import type { LoadTarget } from './load-generator.js';
import { resolveRepositoryModel } from './repository-model.js';
import { GebeError } from '../../errors.js';
import { isEnsembleConfig } from '../ensemble/plan.js';
import { DiskModelSource } from '../server/disk-source.js';
import { silentLogger } from '../server/logger.js';
import type { ModelLookup } from '../server/model-lookup.js';
import { ModelManager } from '../server/model-manager.js';
import type { SequenceStep } from './sequences.js';

/** The executor facade's loader (same signature the server's model manager uses). */
export type LoadModelFn = (modelDir: string, version: string, config: ModelConfig) => Promise<LoadedModel>;

const nothing = (): undefined => undefined;

class InProcessClient implements InferClient {
  private next = 0;
  readonly streamsResponses: boolean;
  /** --request-parameter's, as a server hands a request's other parameters to the model (a copy each: a model may keep its request's). */
  private readonly parameters?: RequestParameters;
  constructor(private readonly model: LoadedModel, private readonly requests: RequestInputs[], parameters?: RequestParameters) {
    this.streamsResponses = Boolean(model.decoupled && model.inferDecoupled);
    if (parameters && Object.keys(parameters).length > 0) this.parameters = parameters;
  }

  infer(step?: SequenceStep, onResponse?: () => void): Promise<undefined> {
    const inputs = this.requests[this.next]!;
    this.next = (this.next + 1) % this.requests.length;
    // No async wrapper: one promise per request is all the executor's completion needs.
    const request: InferRequest = step ? { inputs, sequenceId: step.id, sequenceStart: step.start, sequenceEnd: step.end } : { inputs };
    if (this.parameters) request.parameters = { ...this.parameters };
    // A decoupled model's request is done at its final flag; a response it sent as an error fails it.
    if (this.streamsResponses) return runToFinal((on) => this.model.inferDecoupled!(request, on), onResponse && (() => onResponse())).then(nothing);
    return this.model.infer(request).then(nothing);
  }

  async close(): Promise<void> {}
}

class LoadedModelEndpoint implements ModelEndpoint {
  constructor(private readonly model: LoadedModel, private readonly config: ModelConfig, private readonly others?: ModelLookup) {}

  async describe(): Promise<ModelDescription> {
    const m = this.model;
    return {
      name: m.name, version: m.version, maxBatchSize: m.maxBatchSize, inputs: [...m.inputs], outputs: [...m.outputs],
      config: this.config as unknown as Record<string, unknown>,
    };
  }

  async statistics(): Promise<ModelStatistics> {
    // A copy: the window deltas need the counts as they were, whatever the model does with its object.
    return structuredClone(this.model.stats());
  }

  async statisticsOf(name: string): Promise<ModelStatistics | undefined> {
    try {
      return this.others ? structuredClone(this.others.resolve(name).stats()) : undefined;
    } catch {
      return undefined;
    }
  }

  async close(): Promise<void> {}
}

export class InProcessTarget implements LoadTarget {
  readonly usesClientThreads = false;
  readonly endpoint: LoadedModelEndpoint;

  /** Parameters every request carries (--request-parameter), as through a server. */
  requestParameters?: RequestParameters;

  private constructor(readonly label: string, private readonly model: LoadedModel, config: ModelConfig, private readonly manager?: ModelManager) {
    this.endpoint = new LoadedModelEndpoint(model, config, manager);
  }

  static async open(repository: string, model: string, version: string | undefined, loadModel: LoadModelFn): Promise<InProcessTarget> {
    const ref = await resolveRepositoryModel(repository, model, version);
    if (isEnsembleConfig(ref.config)) {
      // An ensemble runs on other models of the repository: load it as serve does (its steps first).
      const manager = new ModelManager(new DiskModelSource(repository), loadModel, silentLogger, 'explicit');
      try {
        await manager.load(model);
        return new InProcessTarget(`in process (ensemble of ${ref.dir})`, manager.resolve(model, ref.version), ref.config, manager);
      } catch (err) {
        await manager.stop();
        throw new GebeError(`model "${model}" cannot load: ${(err as Error).message}; run \`gebe validate ${repository}\` for every problem`);
      }
    }
    const loaded = await loadModel(ref.dir, ref.version, ref.config);
    return new InProcessTarget(`in process (${loaded.engine} engine, ${ref.dir})`, loaded, ref.config);
  }

  describe(): Promise<ModelDescription> {
    return this.endpoint.describe();
  }

  async createDrivers(requests: RequestInputs[]): Promise<DriverHandle[]> {
    return [new InThreadDriver(new InProcessClient(this.model, requests, this.requestParameters))];
  }

  async close(): Promise<void> {
    if (this.manager) await this.manager.stop();
    else await this.model.unload();
  }
}
