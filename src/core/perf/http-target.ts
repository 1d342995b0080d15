/**
 * A remote KServe v2 server over HTTP as a load target: the control plane on the main thread, the
 * load on worker threads (each with its own event loop and keep-alive connections), or on the main
 * thread when clientThreads is 0.
 */
import { normalizeBaseUrl } from '../kserve/client/base-url.js';
import { HttpModelEndpoint } from '../kserve/client/http-control.js';
import { HttpInferClient } from '../kserve/client/http-load-client.js';
import { encodeBinaryInferRequest } from '../kserve/client/http-binary.js';
import type { ModelDescription, RequestInputs } from '../kserve/client/types.js';
import { InThreadDriver, type DriverHandle } from './driver-handle.js';
import type { LoadTarget } from './load-generator.js';
import { startWorkerDrivers } from './worker-driver.js';

export class HttpTarget implements LoadTarget {
  readonly label: string;
  readonly endpoint: HttpModelEndpoint;
  private description?: ModelDescription;

  constructor(private readonly url: string, model: string, version: string | undefined, readonly usesClientThreads: boolean) {
    this.label = `${normalizeBaseUrl(url)} (HTTP)`;
    this.endpoint = new HttpModelEndpoint(url, model, version);
  }

  async describe(): Promise<ModelDescription> {
    this.description ??= await this.endpoint.describe();
    return this.description;
  }

  async createDrivers(requests: RequestInputs[], count: number): Promise<DriverHandle[]> {
    const model = await this.describe();
    const outputs = model.outputs.map((o) => o.name);
    const bodies = requests.map((r) => encodeBinaryInferRequest(r, outputs));
    const inferPath = this.endpoint.inferPath();
    if (!this.usesClientThreads) {
      return [new InThreadDriver(new HttpInferClient(normalizeBaseUrl(this.url), inferPath, bodies))];
    }
    return startWorkerDrivers(count, () => ({
      transport: 'http',
      baseUrl: normalizeBaseUrl(this.url),
      inferPath,
      bodies: bodies.map((b) => ({ body: new Uint8Array(b.body), headerLength: b.headerLength })),
    }));
  }

  async close(): Promise<void> {
    await this.endpoint.close();
  }
}
