/** Entry of a worker-thread driver: builds its own client from workerData and obeys the load generator. */
import { parentPort, workerData } from 'node:worker_threads';
import { GebeError } from '../../errors.js';
import { LoadDriver } from './driver.js';
import { encodeHistogram } from './histogram.js';
import { HttpInferClient } from '../kserve/client/http-load-client.js';
import type { InferClient } from '../kserve/client/types.js';
import type { WorkerInit, WorkerReply, WorkerRequest } from './worker-protocol.js';

async function createClient(init: WorkerInit): Promise<InferClient> {
  if (init.transport === 'http') {
    const bodies = init.bodies.map((b) => ({ body: Buffer.from(b.body.buffer, b.body.byteOffset, b.body.byteLength), headerLength: b.headerLength }));
    return new HttpInferClient(init.baseUrl, init.inferPath, bodies, init.connection);
  }
  const { GrpcInferClient, GrpcStreamInferClient } = await import('../kserve/client/grpc.js');
  const requests = init.requests.map((r) => Buffer.from(r.buffer, r.byteOffset, r.byteLength));
  return init.streaming ? new GrpcStreamInferClient(init.address, requests, init.connection) : new GrpcInferClient(init.address, requests, init.connection);
}

const port = parentPort!;
const post = (msg: WorkerReply) => port.postMessage(msg);
const client = await createClient(workerData as WorkerInit);
let reportedError = false;
const driver = new LoadDriver(client, (err) => {
  if (reportedError) return;
  reportedError = true;
  post({ type: 'error', message: err instanceof Error ? err.message : String(err), userCaused: err instanceof GebeError });
});
let progress: NodeJS.Timeout | undefined;

port.on('message', (msg: WorkerRequest) => {
  if (msg.type === 'start') {
    reportedError = false; // each setting reports its own first failure
    driver.start(msg.plan);
    progress = setInterval(() => post({ type: 'progress', completed: driver.completed() }), 50);
  } else if (msg.type === 'snapshot') {
    const w = driver.snapshot();
    post({ type: 'window', id: msg.id, window: { ...w, histogram: encodeHistogram(w.histogram) } });
  } else if (msg.type === 'stop') {
    if (progress) clearInterval(progress);
    void driver.stop().then(() => post({ type: 'stopped', id: msg.id }));
  }
});
post({ type: 'ready' });
