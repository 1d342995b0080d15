/** Opens the target a perf run measures: a remote server (HTTP or gRPC) or the model in process. */
import type { ModelDescription, RequestParameters, TraceSettings } from '../kserve/client/types.js';
import type { RemoteOptions } from './remote-options.js';
import { HttpTarget } from './http-target.js';
import type { LoadModelFn } from './in-process-target.js';
import type { LoadTarget } from './load-generator.js';

export interface OpenTarget extends LoadTarget {
  describe(): Promise<ModelDescription>;
  close(): Promise<void>;
  /** Whether the load runs on client threads (network targets) or on the executor's own threads. */
  readonly usesClientThreads: boolean;
  /** Servers: Triton's trace extension (a model's own setting, or undefined: the global one); answers the settings. */
  updateTraceSettings?(model: string | undefined, settings: TraceSettings): Promise<Record<string, string | string[]>>;
}

export interface TargetOptions {
  model: string;
  modelVersion?: string;
  /** `streaming`: every request on a gRPC ModelStreamInfer stream (perf_analyzer's --streaming; how decoupled models answer). */
  target: { kind: 'in-process'; repository: string } | ({ kind: 'remote'; url: string; protocol: 'http' | 'grpc' } & RemoteOptions);
  clientThreads: number;
  /** Parameters every infer request carries, whatever the target (perf_analyzer's --request-parameter). */
  requestParameters?: RequestParameters;
}

export interface TargetDeps {
  /** The executor's loader for in-process runs (injected so tests and tools can choose). */
  loadModel: () => Promise<LoadModelFn>;
}

export async function openTarget(opts: TargetOptions, deps: TargetDeps): Promise<OpenTarget> {
  const t = opts.target;
  const parameters = opts.requestParameters;
  if (t.kind === 'remote' && t.protocol === 'http') {
    return new HttpTarget(t.url, opts.model, opts.modelVersion, opts.clientThreads > 0, { ...t, requestParameters: parameters });
  }
  if (t.kind === 'remote') {
    const { GrpcTarget } = await import('./grpc-target.js');
    return new GrpcTarget(t.url.replace(/^grpc:\/\//, ''), opts.model, opts.modelVersion, opts.clientThreads > 0, { ...t, requestParameters: parameters });
  }
  const { InProcessTarget } = await import('./in-process-target.js');
  const target = await InProcessTarget.open(t.repository, opts.model, opts.modelVersion, await deps.loadModel());
  target.requestParameters = parameters;
  return target;
}
