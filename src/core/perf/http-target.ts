/**
 * A remote KServe v2 server over HTTP as a load target: the control plane on the main thread, the
 * load on worker threads (each with its own event loop and keep-alive connections), or on the main
 * thread when clientThreads is 0.
 */
import { normalizeBaseUrl } from '../kserve/client/base-url.js';
import { HttpModelEndpoint } from '../kserve/client/http-control.js';
import { HttpInferClient } from '../kserve/client/http-load-client.js';
import { encodeBinaryInferRequest, encodeHttpInferRequest } from '../kserve/client/http-binary.js';
import { isBinaryOnly } from '../kserve/datatypes.js';
import { GebeError } from '../../errors.js';
import type { ModelDescription, RequestInputs, RequestParameters, TraceSettings } from '../kserve/client/types.js';
import { InThreadDriver, type DriverHandle } from './driver-handle.js';
import type { LoadTarget } from './load-generator.js';
import { startWorkerDrivers } from './worker-driver.js';
import { PerfSharedMemory } from './shared-memory.js';
import type { RemoteConnection } from '../kserve/client/connection.js';
import type { RemoteOptions, TensorFormats } from './remote-options.js';

export class HttpTarget implements LoadTarget {
  readonly label: string;
  readonly endpoint: HttpModelEndpoint;
  private description?: ModelDescription;
  private shm?: PerfSharedMemory;

  private readonly sharedMemory?: { outputBytes: number };
  private readonly connection?: RemoteConnection;
  private readonly tensorFormat?: TensorFormats;
  private readonly requestParameters?: RequestParameters;

  constructor(private readonly url: string, model: string, version: string | undefined, readonly usesClientThreads: boolean, options: RemoteOptions = {}) {
    ({ sharedMemory: this.sharedMemory, connection: this.connection, tensorFormat: this.tensorFormat, requestParameters: this.requestParameters } = options);
    const json = this.tensorFormat && (this.tensorFormat.input === 'json' || this.tensorFormat.output === 'json')
      ? `, ${this.tensorFormat.input} inputs, ${this.tensorFormat.output} outputs` : '';
    this.label = `${normalizeBaseUrl(url)} (HTTP${this.sharedMemory ? ', system shared memory' : ''}${json})`;
    this.endpoint = new HttpModelEndpoint(url, model, version, this.connection);
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
    const format = this.tensorFormat;
    if (format?.input === 'json') {
      const binaryOnly = requests[0]?.find((t) => isBinaryOnly(t.datatype));
      if (binaryOnly) throw new GebeError(`input '${binaryOnly.name}' is ${binaryOnly.datatype}, which has no JSON form`, { hint: 'send it with --input-tensor-format binary' });
    }
    if (format?.output === 'json') {
      const binaryOnly = model.outputs.find((o) => isBinaryOnly(o.datatype));
      if (binaryOnly) throw new GebeError(`output '${binaryOnly.name}' is ${binaryOnly.datatype}, which has no JSON form`, { hint: 'ask for it with --output-tensor-format binary' });
    }
    const params = this.requestParameters;
    const bodies = requests.map((r, i) => (format && !this.shm ? encodeHttpInferRequest(r, outputs, format, params) : encodeBinaryInferRequest(r, outputs, this.shm?.layouts[i], params)));
    const inferPath = this.endpoint.inferPath();
    if (!this.usesClientThreads) {
      return [new InThreadDriver(new HttpInferClient(normalizeBaseUrl(this.url), inferPath, bodies, this.connection))];
    }
    return startWorkerDrivers(count, () => ({
      transport: 'http',
      baseUrl: normalizeBaseUrl(this.url),
      inferPath,
      bodies: bodies.map((b) => ({ body: new Uint8Array(b.body), headerLength: b.headerLength })),
      connection: this.connection,
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
