/**
 * KServe v2 over gRPC (inference.GRPCInferenceService): the control plane through the project's
 * .proto, and a data-plane client that sends pre-encoded ModelInferRequest bytes (raw_input_contents)
 * and does not decode responses beyond their status, so the client stays cheap per request.
 */
import * as grpc from '@grpc/grpc-js';
import { GebeError } from '../../../errors.js';
import type { Datatype, ModelStatistics } from '../../executor/types.js';
import { grpcRoot, TO_OBJECT } from '../../server/grpc/proto.js';
import type { InferClient, ModelDescription, ModelEndpoint, RequestInputs } from './types.js';

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

function unreachable(address: string, err: grpc.ServiceError): GebeError {
  return new GebeError(`cannot reach a KServe v2 gRPC server at ${address} (${err.details || grpc.status[err.code]}); start one with \`gebe serve <repo>\` or pass the right -u host:port with -i grpc`);
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
    if (e.code === grpc.status.UNAVAILABLE || e.code === grpc.status.DEADLINE_EXCEEDED) throw unreachable(address, e);
    throw err;
  }
}

/** Encodes one ModelInferRequest with every input as raw bytes, reused for every send. */
export function encodeGrpcInferRequest(model: string, version: string, inputs: RequestInputs, outputs: string[]): Buffer {
  const t = type('ModelInferRequest');
  const message = t.fromObject({
    model_name: model,
    model_version: version,
    inputs: inputs.map((i) => ({ name: i.name, datatype: i.datatype, shape: i.shape })),
    outputs: outputs.map((name) => ({ name })),
    raw_input_contents: inputs.map((i) => Buffer.from(i.data.buffer, i.data.byteOffset, i.data.byteLength)),
  });
  return Buffer.from(t.encode(message).finish());
}

export class GrpcModelEndpoint implements ModelEndpoint {
  private readonly client: grpc.Client;
  private version: string;

  constructor(readonly address: string, private readonly model: string, requestedVersion?: string) {
    this.client = new grpc.Client(address, grpc.credentials.createInsecure());
    this.version = requestedVersion ?? '';
  }

  async describe(): Promise<ModelDescription> {
    const what = () => (this.version ? `model "${this.model}" version ${this.version}` : `model "${this.model}"`);
    let meta: Record<string, unknown>;
    try {
      meta = await rpc(this.client, this.address, 'ModelMetadata', 'ModelMetadataRequest', 'ModelMetadataResponse', { name: this.model, version: this.version });
    } catch (err) {
      if (err instanceof GebeError) throw err;
      throw new GebeError(`${what()} is not on the gRPC server at ${this.address} (${(err as grpc.ServiceError).details}); check -m/--model-version`);
    }
    const versions = (meta.versions as string[] | undefined) ?? [];
    if (!this.version && versions.length > 0) this.version = [...versions].sort((a, b) => Number(b) - Number(a))[0]!;
    const ready = await rpc(this.client, this.address, 'ModelReady', 'ModelReadyRequest', 'ModelReadyResponse', { name: this.model, version: this.version }).catch(() => ({ ready: false }));
    if (!ready.ready) throw new GebeError(`${what()} is not ready on ${this.address}; wait for it to load, or check the server log`);
    const config = await rpc(this.client, this.address, 'ModelConfig', 'ModelConfigRequest', 'ModelConfigResponse', { name: this.model, version: this.version });
    const tensors = (list: unknown) => (list as Array<{ name: string; datatype: string; shape: number[] }>).map((t) => ({ name: t.name, datatype: t.datatype as Datatype, shape: t.shape.map(Number) }));
    return {
      name: String(meta.name),
      version: this.version,
      maxBatchSize: Number((config.config as { max_batch_size?: number } | undefined)?.max_batch_size ?? 0),
      inputs: tensors(meta.inputs),
      outputs: tensors(meta.outputs),
    };
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

  modelVersion(): string {
    return this.version;
  }

  async close(): Promise<void> {
    this.client.close();
  }
}

export class GrpcInferClient implements InferClient {
  private readonly client: grpc.Client;
  private next = 0;

  constructor(private readonly address: string, private readonly requests: Buffer[]) {
    this.client = new grpc.Client(address, grpc.credentials.createInsecure());
  }

  infer(): Promise<undefined> {
    const payload = this.requests[this.next]!;
    this.next = (this.next + 1) % this.requests.length;
    return new Promise((resolve, reject) => {
      this.client.makeUnaryRequest(`/${SERVICE}/ModelInfer`, identity, identity, payload, (err) => {
        if (!err) { resolve(undefined); return; }
        if (err.code === grpc.status.UNAVAILABLE) reject(unreachable(this.address, err));
        else reject(new GebeError(`the server answered ${grpc.status[err.code]} to an inference request: ${err.details}`));
      });
    });
  }

  async close(): Promise<void> {
    this.client.close();
  }
}
