/** An InferTarget on a running KServe v2 server over gRPC (`-u host:port --protocol grpc`). */
import fs from 'node:fs';
import path from 'node:path';
import * as grpc from '@grpc/grpc-js';
import { GebeError } from '../../errors.js';
import type { ModelConfig } from '../../core/config/model-config.js';
import type { Datatype, InferTensor } from '../../core/executor/types.js';
import { encodeGrpcInferRequest, GrpcModelEndpoint, inferFailure } from '../../core/perf/clients/grpc.js';
import { grpcRoot, TO_OBJECT } from '../../core/kserve/grpc-proto.js';
import { inputFormats, readLabels, type InferTarget } from './target.js';

const SERVICE = 'inference.GRPCInferenceService';
const identity = (b: Buffer) => b;

function unary(client: grpc.Client, method: string, payload: Buffer): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    client.makeUnaryRequest(`/${SERVICE}/${method}`, identity, identity, payload, { deadline: Date.now() + 60_000 }, (err, value) => {
      if (err) reject(err);
      else resolve(value!);
    });
  });
}

export async function openGrpcTarget(address: string, model: string, version: string | undefined, localRepo: string | undefined): Promise<InferTarget> {
  const endpoint = new GrpcModelEndpoint(address, model, version);
  const client = new grpc.Client(address, grpc.credentials.createInsecure());
  const close = async () => {
    client.close();
    await endpoint.close();
  };
  try {
    const description = await endpoint.describe();
    const modelVersion = endpoint.modelVersion();
    const config = await readConfig(client, model, modelVersion);
    const modelDir = localRepo ? path.join(localRepo, model) : undefined;
    const local = modelDir && fs.existsSync(path.join(modelDir, 'config.pbtxt')) ? modelDir : undefined;
    return {
      description,
      formats: inputFormats(config),
      labels: local ? readLabels(local, config) : {},
      config,
      gears: [],
      modelDir: local,
      configFile: local ? path.join(local, 'config.pbtxt') : undefined,
      where: `grpc://${address}`,
      infer: (inputs, outputs) => grpcInfer(client, address, model, modelVersion, inputs, outputs),
      close,
    };
  } catch (err) {
    await close();
    throw err;
  }
}

async function readConfig(client: grpc.Client, model: string, version: string): Promise<ModelConfig | undefined> {
  const req = grpcRoot().lookupType('inference.ModelConfigRequest');
  const res = grpcRoot().lookupType('inference.ModelConfigResponse');
  try {
    const reply = await unary(client, 'ModelConfig', Buffer.from(req.encode(req.fromObject({ name: model, version })).finish()));
    return (res.toObject(res.decode(reply), TO_OBJECT) as { config?: ModelConfig }).config;
  } catch {
    return undefined;
  }
}

async function grpcInfer(client: grpc.Client, address: string, model: string, version: string, inputs: InferTensor[], outputs: string[]): Promise<InferTensor[]> {
  let reply: Buffer;
  try {
    reply = await unary(client, 'ModelInfer', encodeGrpcInferRequest(model, version, inputs, outputs));
  } catch (err) {
    throw inferFailure(client, address, err as grpc.ServiceError);
  }
  const res = grpcRoot().lookupType('inference.ModelInferResponse');
  const message = res.toObject(res.decode(reply), TO_OBJECT) as {
    outputs: Array<{ name: string; datatype: string; shape: number[] }>;
    raw_output_contents: Buffer[];
  };
  if (message.raw_output_contents.length !== message.outputs.length) {
    throw new GebeError(`the gRPC server at ${address} sent ${message.outputs.length} outputs but ${message.raw_output_contents.length} raw contents; gebe infer reads raw_output_contents only`);
  }
  return message.outputs.map((o, i) => ({
    name: o.name,
    datatype: o.datatype as Datatype,
    shape: o.shape.map(Number),
    data: new Uint8Array(message.raw_output_contents[i]!),
  }));
}
