/**
 * An InferTarget on a running KServe v2 server (`-u host:port`, over HTTP or with `-i grpc`): the
 * KServe client (core/kserve/client) describes the model, reads its config and runs each request.
 */
import fs from 'node:fs';
import path from 'node:path';
import { isDecoupled, type ModelConfig } from '../../core/config/model-config.js';
import type { InferTensor } from '../../core/executor/types.js';
import { GebeError } from '../../errors.js';
import { takesOneMessage } from '../../core/executor/decoupled.js';
import { GrpcModelEndpoint } from '../../core/kserve/client/grpc.js';
import { HttpModelEndpoint } from '../../core/kserve/client/http-control.js';
import type { RemoteModel } from '../../core/kserve/client/types.js';
import type { RemoteConnection } from '../../core/kserve/client/connection.js';
import { inputFormats, readLabels, type InferTarget } from './target.js';

/** A decoupled model addressed over HTTP infer, which takes one response a request: what to do instead. */
export function decoupledOverHttp(model: string): GebeError {
  return new GebeError(takesOneMessage(model, 'HTTP infer'), { hint: `pass -i grpc with the server's gRPC address (gebe serve: port 8001)` });
}

/** `connection`: TLS and the user's headers (-H). */
export function openHttpTarget(url: string, model: string, version: string | undefined, localRepo: string | undefined, connection?: RemoteConnection): Promise<InferTarget> {
  return openRemoteTarget(new HttpModelEndpoint(url, model, version, connection), model, localRepo);
}

export async function openGrpcTarget(address: string, model: string, version: string | undefined, localRepo: string | undefined, connection?: RemoteConnection): Promise<InferTarget> {
  const endpoint = new GrpcModelEndpoint(address, model, version, connection);
  const target = await openRemoteTarget(endpoint, model, localRepo);
  const stream: NonNullable<InferTarget['stream']> = (inputs, outputs, onResponse) => endpoint.stream(inputs, outputs, onResponse);
  if (!isDecoupled(target.config)) return { ...target, stream };
  // A decoupled model's request (gebe warmup's) runs on a stream to its final flag: the last
  // outputs it sent; an error it sent fails it.
  const infer: InferTarget['infer'] = async (inputs, outputs) => {
    let last: InferTensor[] = [];
    let failed: string | undefined;
    await stream(inputs, outputs, (r) => (r.error !== undefined ? (failed ??= r.error) : (last = r.outputs)));
    if (failed !== undefined) throw new GebeError(`model "${model}" answered an error: ${failed}`);
    return last;
  };
  return { ...target, stream, infer };
}

async function openRemoteTarget(endpoint: RemoteModel, model: string, localRepo: string | undefined): Promise<InferTarget> {
  try {
    const description = await endpoint.describe();
    // The server's config extension; label files are not served over KServe v2: they are read
    // from a local copy of the repository if there is one.
    const config = description.config as ModelConfig | undefined;
    const modelDir = localRepo ? path.join(localRepo, model) : undefined;
    const local = modelDir && fs.existsSync(path.join(modelDir, 'config.pbtxt')) ? modelDir : undefined;
    return {
      description,
      formats: inputFormats(config),
      labels: modelDir && fs.existsSync(modelDir) ? readLabels(modelDir, config) : {},
      config,
      gears: [],
      modelDir: local,
      configFile: local ? path.join(local, 'config.pbtxt') : undefined,
      where: endpoint.where(),
      infer: (inputs, outputs) => endpoint.infer(inputs, outputs),
      close: () => endpoint.close(),
    };
  } catch (err) {
    await endpoint.close();
    throw err;
  }
}
