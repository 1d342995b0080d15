/** A remote KServe v2 server over gRPC as a load target; like HttpTarget, load runs on worker threads. */
import { encodeGrpcInferRequest, GrpcInferClient, GrpcModelEndpoint, GrpcStreamInferClient } from '../kserve/client/grpc.js';
import type { ModelDescription, RequestInputs, RequestParameters, TraceSettings } from '../kserve/client/types.js';
import { InThreadDriver, type DriverHandle } from './driver-handle.js';
import type { LoadTarget } from './load-generator.js';
import { startWorkerDrivers } from './worker-driver.js';
import { PerfSharedMemory } from './shared-memory.js';
import type { RemoteConnection } from '../kserve/client/connection.js';
import type { RemoteOptions } from './remote-options.js';

export class GrpcTarget implements LoadTarget {
  readonly label: string;
  readonly endpoint: GrpcModelEndpoint;
  private description?: ModelDescription;
  private shm?: PerfSharedMemory;

  private readonly streaming: boolean;
  private readonly sharedMemory?: { outputBytes: number };
  private readonly connection?: RemoteConnection;
  private readonly requestParameters?: RequestParameters;

  constructor(private readonly address: string, model: string, version: string | undefined, readonly usesClientThreads: boolean, options: RemoteOptions = {}) {
    this.streaming = options.streaming === true;
    ({ sharedMemory: this.sharedMemory, connection: this.connection, requestParameters: this.requestParameters } = options);
    this.label = `${address} (gRPC${this.streaming ? ', streaming' : ''}${this.sharedMemory ? ', system shared memory' : ''})`;
    this.endpoint = new GrpcModelEndpoint(address, model, version, this.connection);
  }

  async describe(): Promise<ModelDescription> {
    this.description ??= await this.endpoint.describe();
    return this.description;
  }

  async createDrivers(requests: RequestInputs[], count: number): Promise<DriverHandle[]> {
    const model = await this.describe();
    const outputs = model.outputs.map((o) => o.name);
    await this.shm?.release();
    this.shm = this.sharedMemory && await PerfSharedMemory.create(requests, outputs, this.sharedMemory.outputBytes, this.endpoint);
    const encoded = requests.map((r, i) => encodeGrpcInferRequest(model.name, model.version, r, outputs, this.shm?.layouts[i], this.requestParameters));
    if (!this.usesClientThreads) {
      return [new InThreadDriver(this.streaming ? new GrpcStreamInferClient(this.address, encoded, this.connection) : new GrpcInferClient(this.address, encoded, this.connection))];
    }
    return startWorkerDrivers(count, () => ({
      transport: 'grpc', address: this.address, requests: encoded.map((b) => new Uint8Array(b)), streaming: this.streaming, connection: this.connection,
    }));
  }

  updateTraceSettings(model: string | undefined, settings: TraceSettings): Promise<Record<string, string | string[]>> {
    return this.endpoint.updateTraceSettings(model, settings);
  }

  async close(): Promise<void> {
    await this.shm?.release();
    await this.endpoint.close();
  }
}
