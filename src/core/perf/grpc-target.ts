/** A remote KServe v2 server over gRPC as a load target; like HttpTarget, load runs on worker threads. */
import { encodeGrpcInferRequest, GrpcInferClient, GrpcModelEndpoint, GrpcStreamInferClient } from '../kserve/client/grpc.js';
import type { ModelDescription, RequestInputs } from '../kserve/client/types.js';
import { InThreadDriver, type DriverHandle } from './driver-handle.js';
import type { LoadTarget } from './load-generator.js';
import { startWorkerDrivers } from './worker-driver.js';

export class GrpcTarget implements LoadTarget {
  readonly label: string;
  readonly endpoint: GrpcModelEndpoint;
  private description?: ModelDescription;

  constructor(private readonly address: string, model: string, version: string | undefined, readonly usesClientThreads: boolean, private readonly streaming = false) {
    this.label = `${address} (gRPC${streaming ? ', streaming' : ''})`;
    this.endpoint = new GrpcModelEndpoint(address, model, version);
  }

  async describe(): Promise<ModelDescription> {
    this.description ??= await this.endpoint.describe();
    return this.description;
  }

  async createDrivers(requests: RequestInputs[], count: number): Promise<DriverHandle[]> {
    const model = await this.describe();
    const encoded = requests.map((r) => encodeGrpcInferRequest(model.name, model.version, r, model.outputs.map((o) => o.name)));
    if (!this.usesClientThreads) {
      return [new InThreadDriver(this.streaming ? new GrpcStreamInferClient(this.address, encoded) : new GrpcInferClient(this.address, encoded))];
    }
    return startWorkerDrivers(count, () => ({
      transport: 'grpc', address: this.address, requests: encoded.map((b) => new Uint8Array(b)), streaming: this.streaming,
    }));
  }

  async close(): Promise<void> {
    await this.endpoint.close();
  }
}
