/**
 * KServe v2 over gRPC (inference.GRPCInferenceService): the control plane and one-shot inference
 * (`infer`, `warmup`, `compare`) through the project's .proto, and perf's data-plane client that
 * sends pre-encoded ModelInferRequest bytes (raw_input_contents) and does not decode responses
 * beyond their status, so the client stays cheap per request.
 */
import * as grpc from '@grpc/grpc-js';
import { GebeError } from '../../../errors.js';
import type { Datatype, InferTensor, ModelStatistics } from '../../executor/types.js';
import { grpcRoot, TO_OBJECT } from '../grpc-proto.js';
import { EMPTY_FINAL_PARAMETER, grpcParameters, isFinalStreamResponse } from '../codec/grpc-infer.js';
import { latest } from './latest-stats.js';
import { inferenceRefused, modelRefused, sharedMemoryRefused, streamedRefusal, traceSettingsRefused, unreachable } from './server-errors.js';
import type { InferClient, ModelDescription, RemoteModel, RequestInputs, RequestParameters, SharedMemoryLayout, TraceSettings } from './types.js';
import type { SharedMemoryPlace } from '../codec/shared-memory-params.js';
import type { SequenceStep } from './types.js';
import { grpcClient, type RemoteConnection } from './connection.js';

const SERVICE = 'inference.GRPCInferenceService';

function type(name: string) {
  return grpcRoot().lookupType(`inference.${name}`);
}

const identity = (b: Buffer) => b;

function callUnary(client: grpc.Client, method: string, payload: Buffer, deadlineMs = 10_000): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    client.makeUnaryRequest(`/${SERVICE}/${method}`, identity, identity, payload, { deadline: Date.now() + deadlineMs }, (err, value) => {
      if (err) reject(err);
      else resolve(value!);
    });
  });
}

/**
 * A transport failure (nothing listening, the connection lost) and a status the server sent can
 * share a code: a server answers UNAVAILABLE for a model that is not ready. The channel tells
 * them apart: it is READY only while connected to a server that answered.
 */
function transportFailed(client: grpc.Client, err: grpc.ServiceError): boolean {
  if (err.code !== grpc.status.UNAVAILABLE && err.code !== grpc.status.DEADLINE_EXCEEDED) return false;
  return client.getChannel().getConnectivityState(false) !== grpc.connectivityState.READY;
}

function unreachableGrpc(address: string, err: grpc.ServiceError): GebeError {
  return unreachable(address, err.details || grpc.status[err.code] || String(err.code), 'grpc');
}

/** A failed ModelInfer as `infer` and `perf` report it, with the wording HTTP gets for the same status. */
export function inferFailure(client: grpc.Client, address: string, err: grpc.ServiceError): GebeError {
  if (transportFailed(client, err)) return unreachableGrpc(address, err);
  return inferenceRefused(`grpc://${address}`, { grpc: err.code }, err.details);
}

async function rpc(client: grpc.Client, address: string, method: string, requestType: string, responseType: string, request: Record<string, unknown>): Promise<Record<string, unknown>> {
  const req = type(requestType);
  const bytes = Buffer.from(req.encode(req.fromObject(request)).finish());
  try {
    const reply = await callUnary(client, method, bytes);
    const res = type(responseType);
    return res.toObject(res.decode(reply), TO_OBJECT);
  } catch (err) {
    const e = err as grpc.ServiceError;
    if (transportFailed(client, e)) throw unreachableGrpc(address, e);
    throw err;
  }
}

/** A ModelInferRequest holding only a sequence step's parameters, to append to a prepared request. */
export function encodeGrpcSequenceParameters(step: SequenceStep): Buffer {
  const t = type('ModelInferRequest');
  return Buffer.from(t.encode(t.fromObject({
    parameters: {
      sequence_id: { uint64_param: step.id },
      sequence_start: { bool_param: step.start },
      sequence_end: { bool_param: step.end },
    },
  })).finish());
}

/**
 * Encodes one ModelInferRequest with every input as raw bytes, reused for every send. `shm`: where
 * the tensors lie in a registered shared-memory region instead (no raw_input_contents);
 * `parameters`: request parameters every send carries (perf's --request-parameter).
 */
export function encodeGrpcInferRequest(model: string, version: string, inputs: RequestInputs, outputs: string[], shm?: SharedMemoryLayout, parameters?: RequestParameters): Buffer {
  const t = type('ModelInferRequest');
  const placed = (place: SharedMemoryPlace | undefined) => place && { parameters: {
    shared_memory_region: { string_param: place.region }, shared_memory_byte_size: { int64_param: place.byteSize }, shared_memory_offset: { int64_param: place.offset },
  } };
  const message = t.fromObject({
    model_name: model,
    model_version: version,
    inputs: inputs.map((i, k) => ({ name: i.name, datatype: i.datatype, shape: i.shape, ...placed(shm?.inputs[k]) })),
    outputs: outputs.map((name) => ({ name, ...placed(shm?.outputs.get(name)) })),
    raw_input_contents: shm ? [] : inputs.map((i) => Buffer.from(i.data.buffer, i.data.byteOffset, i.data.byteLength)),
    ...(parameters && Object.keys(parameters).length > 0 ? { parameters: grpcParameters(parameters) } : {}),
  });
  return Buffer.from(t.encode(message).finish());
}

/** A ModelInferRequest holding only the parameter asking for the final flag even without a response, to append to a request. */
function encodeEmptyFinalParameter(): Buffer {
  const t = type('ModelInferRequest');
  return Buffer.from(t.encode(t.fromObject({ parameters: { [EMPTY_FINAL_PARAMETER]: { bool_param: true } } })).finish());
}

interface DecodedInferResponse {
  outputs: Array<{ name: string; datatype: string; shape: number[] }>;
  raw_output_contents: Buffer[];
  parameters?: Record<string, { bool_param?: boolean }>;
}

/** ModelInferResponse's outputs as tensors; only raw_output_contents are read (what gebe asks for). */
function decodeInferResponse(address: string, reply: Buffer): InferTensor[] {
  const res = type('ModelInferResponse');
  return responseTensors(address, res.toObject(res.decode(reply), TO_OBJECT) as DecodedInferResponse);
}

function responseTensors(address: string, message: DecodedInferResponse): InferTensor[] {
  if (message.raw_output_contents.length !== message.outputs.length) {
    throw new GebeError(`the gRPC server at ${address} sent ${message.outputs.length} outputs but ${message.raw_output_contents.length} raw contents; gebe reads raw_output_contents only`);
  }
  return message.outputs.map((o, i) => ({
    name: o.name,
    datatype: o.datatype as Datatype,
    shape: o.shape.map(Number),
    data: new Uint8Array(message.raw_output_contents[i]!),
  }));
}

export class GrpcModelEndpoint implements RemoteModel {
  private readonly client: grpc.Client;
  private version: string;

  /** `connection`: TLS and the user's headers (metadata on every call). */
  constructor(readonly address: string, private readonly model: string, requestedVersion?: string, connection?: RemoteConnection) {
    this.client = grpcClient(address, connection);
    this.version = requestedVersion ?? '';
  }

  async describe(): Promise<ModelDescription> {
    const what = () => (this.version ? `model "${this.model}" version ${this.version}` : `model "${this.model}"`);
    const where = `grpc://${this.address}`;
    let meta: Record<string, unknown>;
    try {
      meta = await rpc(this.client, this.address, 'ModelMetadata', 'ModelMetadataRequest', 'ModelMetadataResponse', { name: this.model, version: this.version });
    } catch (err) {
      if (err instanceof GebeError) throw err;
      const e = err as grpc.ServiceError;
      const known = e.code === grpc.status.NOT_FOUND ? await this.modelNames() : [];
      throw modelRefused(what(), where, { grpc: e.code }, e.details, known);
    }
    const versions = (meta.versions as string[] | undefined) ?? [];
    if (!this.version && versions.length > 0) this.version = [...versions].sort((a, b) => Number(b) - Number(a))[0]!;
    const ready = await rpc(this.client, this.address, 'ModelReady', 'ModelReadyRequest', 'ModelReadyResponse', { name: this.model, version: this.version })
      .catch((err: unknown) => ({ ready: false, why: (err as grpc.ServiceError).details }));
    if (!ready.ready) throw modelRefused(what(), where, { grpc: grpc.status.UNAVAILABLE }, String(ready.why ?? 'ModelReady answered false'));
    const config = await rpc(this.client, this.address, 'ModelConfig', 'ModelConfigRequest', 'ModelConfigResponse', { name: this.model, version: this.version });
    const tensors = (list: unknown) => (list as Array<{ name: string; datatype: string; shape: number[] }>).map((t) => ({ name: t.name, datatype: t.datatype as Datatype, shape: t.shape.map(Number) }));
    return {
      name: String(meta.name),
      version: this.version,
      maxBatchSize: Number((config.config as { max_batch_size?: number } | undefined)?.max_batch_size ?? 0),
      inputs: tensors(meta.inputs),
      outputs: tensors(meta.outputs),
      ...(config.config ? { config: config.config as Record<string, unknown> } : {}),
    };
  }

  /** Triton's system shared-memory extension: registers bytes [offset, offset + byteSize) of POSIX shared-memory object `key` as region `name`. */
  async registerSystemSharedMemory(name: string, key: string, offset: number, byteSize: number): Promise<void> {
    try {
      await rpc(this.client, this.address, 'SystemSharedMemoryRegister', 'SystemSharedMemoryRegisterRequest', 'SystemSharedMemoryRegisterResponse', { name, key, offset, byte_size: byteSize });
    } catch (err) {
      if (err instanceof GebeError) throw err;
      throw sharedMemoryRefused(`grpc://${this.address}`, name, (err as grpc.ServiceError).details);
    }
  }

  /** Unregisters region `name`; a failure is not reported (the run is ending). */
  async unregisterSystemSharedMemory(name: string): Promise<void> {
    await rpc(this.client, this.address, 'SystemSharedMemoryUnregister', 'SystemSharedMemoryUnregisterRequest', 'SystemSharedMemoryUnregisterResponse', { name }).catch(() => undefined);
  }

  /** Triton's trace extension: applies `settings` to `model`'s own trace setting (undefined: the global one) and answers the settings. */
  async updateTraceSettings(model: string | undefined, settings: TraceSettings): Promise<Record<string, string | string[]>> {
    // TraceSettingRequest: each value a list of strings, an empty list clears.
    const request = Object.fromEntries(Object.entries(settings).map(([k, v]) => [k, { value: v === null ? [] : Array.isArray(v) ? v : [v] }]));
    let reply: Record<string, unknown>;
    try {
      reply = await rpc(this.client, this.address, 'TraceSetting', 'TraceSettingRequest', 'TraceSettingResponse', { settings: request, model_name: model ?? '' });
    } catch (err) {
      if (err instanceof GebeError) throw err;
      throw traceSettingsRefused(`grpc://${this.address}`, (err as grpc.ServiceError).details);
    }
    const answered = (reply.settings ?? {}) as Record<string, { value?: string[] }>;
    return Object.fromEntries(Object.entries(answered).map(([k, v]) => [k, k === 'trace_level' ? v.value ?? [] : (v.value ?? [])[0] ?? '']));
  }

  async statistics(): Promise<ModelStatistics | undefined> {
    try {
      const reply = await rpc(this.client, this.address, 'ModelStatistics', 'ModelStatisticsRequest', 'ModelStatisticsResponse', { name: this.model, version: this.version });
      const stats = reply.model_stats as ModelStatistics[] | undefined;
      return stats?.find((s) => s.version === this.version) ?? stats?.[0];
    } catch {
      return undefined;
    }
  }

  async statisticsOf(model: string): Promise<ModelStatistics | undefined> {
    try {
      const reply = await rpc(this.client, this.address, 'ModelStatistics', 'ModelStatisticsRequest', 'ModelStatisticsResponse', { name: model, version: '' });
      return latest(reply.model_stats as ModelStatistics[] | undefined);
    } catch {
      return undefined;
    }
  }

  /** The models the server has statistics for (empty when it will not say). */
  private async modelNames(): Promise<string[]> {
    try {
      const reply = await rpc(this.client, this.address, 'ModelStatistics', 'ModelStatisticsRequest', 'ModelStatisticsResponse', { name: '' });
      return ((reply.model_stats as Array<{ name: string }> | undefined) ?? []).map((s) => s.name);
    } catch {
      return [];
    }
  }

  modelVersion(): string {
    return this.version;
  }

  where(): string {
    return `grpc://${this.address}`;
  }

  /** One ModelInfer of the version describe() settled on, decoded. */
  async infer(inputs: InferTensor[], outputs: string[]): Promise<InferTensor[]> {
    let reply: Buffer;
    try {
      reply = await callUnary(this.client, 'ModelInfer', encodeGrpcInferRequest(this.model, this.version, inputs, outputs), 60_000);
    } catch (err) {
      throw inferFailure(this.client, this.address, err as grpc.ServiceError);
    }
    return decodeInferResponse(this.address, reply);
  }

  /**
   * One request on a ModelStreamInfer stream, as a decoupled model takes them: `onResponse` gets
   * each response's outputs, or its in-band error, as it comes; resolves once the server marked
   * one final (`triton_final_response`; the request asks for it even without a response).
   */
  stream(inputs: InferTensor[], outputs: string[], onResponse: (r: StreamedResponse) => void): Promise<void> {
    const request = Buffer.concat([encodeGrpcInferRequest(this.model, this.version, inputs, outputs), encodeEmptyFinalParameter()]);
    const res = type('ModelStreamInferResponse');
    return new Promise((resolve, reject) => {
      const call = this.client.makeBidiStreamRequest(`/${SERVICE}/ModelStreamInfer`, identity, identity);
      let finished = false;
      const finish = (err?: Error): void => {
        if (finished) return;
        finished = true;
        call.end();
        if (err) reject(err);
        else resolve();
      };
      call.on('data', (bytes: Buffer) => {
        try {
          const message = res.toObject(res.decode(bytes), TO_OBJECT) as { error_message: string; infer_response?: DecodedInferResponse };
          const response = message.infer_response;
          if (message.error_message) onResponse({ error: message.error_message });
          else if (response && response.outputs.length > 0) onResponse({ outputs: responseTensors(this.address, response) });
          if (isFinalStreamResponse(response)) finish();
        } catch (err) {
          finish(err as Error);
        }
      });
      call.on('error', (err: grpc.ServiceError) => finish(inferFailure(this.client, this.address, err)));
      // A server that ends the call without a final flag has nothing more to send.
      call.on('end', () => finish());
      call.write(request);
    });
  }

  async close(): Promise<void> {
    this.client.close();
  }
}

/** One response of a streamed request: its outputs, or the error the server sent in band. */
export type StreamedResponse = { outputs: InferTensor[]; error?: undefined } | { error: string; outputs?: undefined };

/** A ModelInferRequest holding only an id, to append to a prepared request (protobuf keeps the last). */
function encodeRequestId(id: string): Buffer {
  const t = type('ModelInferRequest');
  return Buffer.from(t.encode(t.fromObject({ id })).finish());
}

interface StreamResponseMessage {
  error_message: string;
  infer_response?: { id: string; parameters?: Record<string, { bool_param?: boolean }>; outputs?: unknown[] };
}

/**
 * perf's data-plane client over gRPC streaming (perf_analyzer's --streaming, the way decoupled
 * models answer): one ModelStreamInfer call carries every request, each with an id of its own and
 * asking for the final flag; a request is done when a response with its id is marked final
 * (responses before it are read for their id and flag only). An error sent in band fails its
 * request; a call that breaks fails every request on it, and the next request opens a new call.
 */
export class GrpcStreamInferClient implements InferClient {
  private readonly client: grpc.Client;
  private call?: grpc.ClientDuplexStream<Buffer, Buffer>;
  private readonly pending = new Map<string, { resolve(): void; reject(err: Error): void; onResponse?: () => void }>();
  private readonly emptyFinal = encodeEmptyFinalParameter();
  readonly streamsResponses = true;
  private next = 0;
  private nextId = 0;

  constructor(private readonly address: string, private readonly requests: Buffer[], connection?: RemoteConnection) {
    this.client = grpcClient(address, connection);
  }

  infer(step?: SequenceStep, onResponse?: () => void): Promise<undefined> {
    const id = `gebe-perf-${this.nextId++}`;
    const parts = [this.requests[this.next]!, encodeRequestId(id), this.emptyFinal];
    if (step) parts.push(encodeGrpcSequenceParameters(step));
    this.next = (this.next + 1) % this.requests.length;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve: () => resolve(undefined), reject, ...(onResponse ? { onResponse } : {}) });
      this.stream().write(Buffer.concat(parts));
    });
  }

  private stream(): grpc.ClientDuplexStream<Buffer, Buffer> {
    if (this.call) return this.call;
    const call = this.client.makeBidiStreamRequest(`/${SERVICE}/ModelStreamInfer`, identity, identity);
    const res = type('ModelStreamInferResponse');
    const broken = (err: Error): void => {
      if (this.call === call) this.call = undefined;
      for (const p of this.pending.values()) p.reject(err);
      this.pending.clear();
    };
    call.on('data', (bytes: Buffer) => {
      const message = res.toObject(res.decode(bytes), { defaults: true }) as StreamResponseMessage;
      const id = message.infer_response?.id ?? '';
      const waiting = this.pending.get(id);
      if (!waiting) return;
      if (!message.error_message && (message.infer_response?.outputs?.length ?? 0) > 0) waiting.onResponse?.();
      if (message.error_message) {
        this.pending.delete(id);
        waiting.reject(streamedRefusal(`grpc://${this.address}`, message.error_message));
      } else if (isFinalStreamResponse(message.infer_response)) {
        this.pending.delete(id);
        waiting.resolve();
      }
    });
    call.on('error', (err: grpc.ServiceError) => broken(inferFailure(this.client, this.address, err)));
    call.on('end', () => broken(new GebeError(`the gRPC server at ${this.address} ended its ModelStreamInfer stream with requests still open`)));
    this.call = call;
    return call;
  }

  async close(): Promise<void> {
    this.call?.end();
    this.client.close();
  }
}

export class GrpcInferClient implements InferClient {
  private readonly client: grpc.Client;
  private next = 0;

  constructor(private readonly address: string, private readonly requests: Buffer[], connection?: RemoteConnection) {
    this.client = grpcClient(address, connection);
  }

  infer(step?: SequenceStep): Promise<undefined> {
    // Protobuf merges concatenated messages: the step's parameters map entries join the prepared request.
    const prepared = this.requests[this.next]!;
    const payload = step ? Buffer.concat([prepared, encodeGrpcSequenceParameters(step)]) : prepared;
    this.next = (this.next + 1) % this.requests.length;
    return new Promise((resolve, reject) => {
      this.client.makeUnaryRequest(`/${SERVICE}/ModelInfer`, identity, identity, payload, (err) => {
        if (!err) resolve(undefined);
        else reject(inferFailure(this.client, this.address, err));
      });
    });
  }

  async close(): Promise<void> {
    this.client.close();
  }
}
