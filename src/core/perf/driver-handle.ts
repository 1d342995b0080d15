/**
 * The load generator talks to every driver through this handle, whether the driver runs on the
 * main thread (in-process mode, where the native executor does the work on its own threads) or on
 * a worker thread with its own event loop (network modes, so the client is not the bottleneck).
 */
import { LoadDriver, type DriverWindow, type LoadPlan } from './driver.js';
import type { InferClient } from '../kserve/client/types.js';

export interface DriverHandle {
  start(plan: LoadPlan): void;
  /** Requests completed since the last snapshot, as last reported. */
  completed(): number;
  snapshot(): Promise<DriverWindow>;
  stop(): Promise<void>;
  /** Releases the thread and the client. */
  close(): Promise<void>;
  /** Called with the first failed request's error. */
  onError(listener: (err: unknown) => void): void;
}

export class InThreadDriver implements DriverHandle {
  private listener: (err: unknown) => void = () => {};
  private readonly driver: LoadDriver;

  constructor(private readonly client: InferClient, private readonly closeClient = true) {
    this.driver = new LoadDriver(client, (err) => this.listener(err));
  }

  start(plan: LoadPlan): void { this.driver.start(plan); }
  completed(): number { return this.driver.completed(); }
  async snapshot(): Promise<DriverWindow> { return this.driver.snapshot(); }
  stop(): Promise<void> { return this.driver.stop(); }
  async close(): Promise<void> { if (this.closeClient) await this.client.close(); }
  onError(listener: (err: unknown) => void): void { this.listener = listener; }
}

/**
 * Splits a plan across n drivers: concurrency as evenly as possible, rate in equal shares, a list
 * of intervals dealt out request by request (each driver sends every n-th request of the schedule).
 */
export function splitPlan(plan: LoadPlan, n: number): LoadPlan[] {
  if (plan.kind === 'rate') {
    return Array.from({ length: n }, () => ({ ...plan, requestsPerSecond: plan.requestsPerSecond / n }));
  }
  if (plan.kind === 'intervals') {
    return Array.from({ length: n }, (_, index) => ({ ...plan, share: { index, of: n } }));
  }
  const shares = Array.from({ length: n }, (_, i) => Math.floor(plan.concurrency / n) + (i < plan.concurrency % n ? 1 : 0));
  // Virtual users are numbered across drivers, so their sequence ids never collide.
  let firstUser = 0;
  return shares.filter((c) => c > 0).map((concurrency) => {
    const share: LoadPlan = plan.sequences
      ? { kind: 'concurrency', concurrency, sequences: { ...plan.sequences, firstUser: plan.sequences.firstUser + firstUser } }
      : { kind: 'concurrency', concurrency };
    firstUser += concurrency;
    return share;
  });
}
