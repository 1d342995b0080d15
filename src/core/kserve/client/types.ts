/**
 * What the load generator needs from a target: a control plane (describe the model, read its
 * statistics) and a data plane (send one prepared request). In-process, HTTP and gRPC implement both.
 */
import type { SharedMemoryPlace } from '../codec/shared-memory-params.js';
import type { InferTensor, ModelStatistics, TensorMetadata } from '../../executor/types.js';

/** The sequence parameters of one request (Triton's sequence_id, sequence_start, sequence_end). */
export interface SequenceStep {
  id: number;
  start: boolean;
  end: boolean;
}

export interface ModelDescription {
  name: string;
  version: string;
  /** 0 when the model does not batch: then the shapes below have no batch dimension. */
  maxBatchSize: number;
  inputs: TensorMetadata[];
  outputs: TensorMetadata[];
  /** The model configuration as the target runs it (Triton's config extension), when it says. */
  config?: Record<string, unknown>;
}

/** Where one measured request's client time went, when the transport can tell (µs). */
export interface RequestTiming {
  sendUs: number;
  recvUs: number;
}

export interface InferClient {
  /**
   * Sends the next prepared request (with the step's sequence parameters, for a sequence model);
   * resolves when the whole response has arrived. A client that streams responses calls
   * `onResponse` as each one carrying outputs comes (not for a final flag alone).
   */
  infer(step?: SequenceStep, onResponse?: () => void): Promise<RequestTiming | undefined>;
  /** True when a request may have any number of responses, each reported to `onResponse`. */
  readonly streamsResponses?: boolean;
  close(): Promise<void>;
}

export interface ModelEndpoint {
  describe(): Promise<ModelDescription>;
  /** The model's statistics now, or undefined when the target has no statistics extension. */
  statistics(): Promise<ModelStatistics | undefined>;
  /** Another model's statistics on the same target (an ensemble's composing models); latest version. */
  statisticsOf?(model: string): Promise<ModelStatistics | undefined>;
  close(): Promise<void>;
}

/** A model on a KServe v2 server, for one-shot inference (`infer`, `warmup -u`, `compare`). */
export interface RemoteModel extends ModelEndpoint {
  /** The server, for messages: the base URL or grpc://host:port. */
  where(): string;
  /** One inference of the version describe() settled on (call describe() first). */
  infer(inputs: InferTensor[], outputs: string[]): Promise<InferTensor[]>;
}

/** Trace settings in Triton's names and form (trace extension): a string, a list, or null to clear a model's own value. */
export type TraceSettings = Record<string, string | string[] | null>;

/**
 * Parameters a client adds to every infer request it sends (perf's --request-parameter): HTTP's
 * JSON `parameters`, gRPC's ModelInferRequest.parameters (a number goes as int64_param), in process
 * InferRequest.parameters. Never one the protocol reserves (codec/http-infer-request.ts).
 */
export type RequestParameters = Readonly<Record<string, string | number | boolean>>;

/** One request's inputs; a sweep cycles through several when --input-data gives several entries. */
export type RequestInputs = InferTensor[];

/** Where one request's tensors lie in registered shared-memory regions: each input (in order), each output by name. */
export interface SharedMemoryLayout {
  inputs: SharedMemoryPlace[];
  outputs: Map<string, SharedMemoryPlace>;
}
