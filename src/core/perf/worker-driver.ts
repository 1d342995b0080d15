/**
 * A driver on a worker thread: its own event loop, its own client and histogram. Windows come back
 * in HdrHistogram's compressed format and are merged by the same aggregate function as in-thread ones.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { GebeError } from '../../errors.js';
import { decodeHistogram } from './histogram.js';
import type { DriverHandle } from './driver-handle.js';
import type { DriverWindow, LoadPlan } from './driver.js';
import type { WorkerInit, WorkerReply, WorkerRequest } from './worker-protocol.js';

/**
 * The worker's entry: the built .js next to this module, or, when running from the TypeScript
 * source (tests, scripts), a bootstrap that registers tsx in the worker before importing the .ts.
 */
function spawnWorker(init: WorkerInit): Worker {
  const js = new URL('./worker-main.js', import.meta.url);
  if (existsSync(fileURLToPath(js))) return new Worker(js, { workerData: init });
  // tsx's public ESM API (the package's `tsx/esm/api` export), resolved here because an eval'd
  // worker has no module of its own to resolve from.
  const tsxApi = import.meta.resolve('tsx/esm/api');
  const ts = new URL('./worker-main.ts', import.meta.url).href;
  const bootstrap = `import(${JSON.stringify(tsxApi)}).then((api) => { api.register(); return import(${JSON.stringify(ts)}); });`;
  return new Worker(bootstrap, { eval: true, workerData: init });
}

export class WorkerThreadDriver implements DriverHandle {
  private readonly worker: Worker;
  private lastCompleted = 0;
  private errorListener: (err: unknown) => void = () => {};
  private pending = new Map<number, { resolve: (reply: WorkerReply) => void; reject: (err: Error) => void }>();
  private nextId = 1;
  private readonly ready: Promise<void>;
  private exited = false;

  constructor(init: WorkerInit) {
    this.worker = spawnWorker(init);
    this.worker.unref();
    let markReady: () => void = () => {};
    let failReady: (err: unknown) => void = () => {};
    this.ready = new Promise((resolve, reject) => { markReady = resolve; failReady = reject; });
    this.worker.on('message', (msg: WorkerReply) => {
      if (msg.type === 'ready') markReady();
      else if (msg.type === 'progress') this.lastCompleted = msg.completed;
      else if (msg.type === 'error') this.errorListener(msg.userCaused ? new GebeError(msg.message) : new Error(msg.message));
      else {
        this.pending.get(msg.id)?.resolve(msg);
        this.pending.delete(msg.id);
      }
    });
    this.worker.on('error', (err) => { failReady(err); this.errorListener(err); });
    this.worker.on('exit', (code) => {
      this.exited = true;
      // Nothing will answer now: fail what is waiting instead of hanging the sweep.
      for (const { reject } of this.pending.values()) reject(new Error(`a client thread exited (code ${code}) during the run`));
      this.pending.clear();
    });
  }

  whenReady(): Promise<void> { return this.ready; }

  private call(req: { type: 'snapshot' | 'stop' }): Promise<WorkerReply> {
    const id = this.nextId++;
    if (this.exited) return Promise.reject(new Error('a client thread exited during the run'));
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.worker.postMessage({ ...req, id } as WorkerRequest);
    });
  }

  start(plan: LoadPlan): void {
    this.worker.postMessage({ type: 'start', plan } satisfies WorkerRequest);
  }

  completed(): number { return this.lastCompleted; }

  async snapshot(): Promise<DriverWindow> {
    const reply = await this.call({ type: 'snapshot' });
    if (reply.type !== 'window') throw new Error(`worker answered ${reply.type} to snapshot`);
    this.lastCompleted = 0;
    return { ...reply.window, histogram: decodeHistogram(reply.window.histogram) };
  }

  async stop(): Promise<void> {
    if (!this.exited) await this.call({ type: 'stop' });
  }

  async close(): Promise<void> {
    if (!this.exited) await this.worker.terminate();
  }

  onError(listener: (err: unknown) => void): void { this.errorListener = listener; }
}

/** Starts `count` (at least one) client threads with the same requests; all are ready, or none is left running. */
export async function startWorkerDrivers(count: number, init: () => WorkerInit): Promise<WorkerThreadDriver[]> {
  const drivers = Array.from({ length: Math.max(1, count) }, () => new WorkerThreadDriver(init()));
  try {
    await Promise.all(drivers.map((d) => d.whenReady()));
  } catch (err) {
    await Promise.all(drivers.map((d) => d.close()));
    throw err;
  }
  return drivers;
}
