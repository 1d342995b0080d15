/**
 * One thread's share of the load: keeps N requests outstanding (concurrency) or fires on a schedule
 * (a request rate, or --request-intervals' gaps), records latencies into its own histogram, and
 * hands the window over on request. On a schedule the latency runs from the scheduled send time,
 * not the actual one, which corrects for coordinated omission: a stalled server cannot hide the
 * requests it delayed.
 */
import { performance, type EventLoopUtilization } from 'node:perf_hooks';
import { createLatencyHistogram, recordLatency, type Histogram } from './histogram.js';
import type { InferClient, SequenceStep } from '../kserve/client/types.js';
import { SequenceCursor, type SequenceLoad } from './sequences.js';
import { RequestRecorder, type InFlightRecord, type RecordPlan, type RequestLogData } from './request-log.js';
import { intervalSchedule, rateSchedule, type ScheduleShare, type SendSchedule } from './schedules.js';

const YIELD_EVERY = 64;

/** A sent request as the recorder sees it (nothing, unless the setting records requests). */
interface Begun {
  recorder?: RequestRecorder;
  kept?: InFlightRecord;
  onResponse?: () => void;
}
const NOT_RECORDED: Begun = Object.freeze({});

export type LoadPlan = (
  | { kind: 'concurrency'; concurrency: number; sequences?: SequenceLoad }
  | { kind: 'rate'; requestsPerSecond: number; distribution: 'constant' | 'poisson' }
  /** --request-intervals: the gaps (µs), cycled; `share`: this driver's part when several send them. */
  | { kind: 'intervals'; intervalsUs: readonly number[]; share?: ScheduleShare }
) & {
  /** Keep each request's timestamps (--profile-export-file), within this budget. */
  record?: RecordPlan;
};

/** What one driver measured since its previous snapshot. */
export interface DriverWindow {
  histogram: Histogram;
  /** Sum of the recorded latencies (µs), for an exact and cheap average. */
  latencySumUs: number;
  requests: number;
  /** Requests whose transport reported send/recv times, and their sums (µs). */
  timedRequests: number;
  sendUsSum: number;
  recvUsSum: number;
  /** Share of wall time this driver's event loop was busy (0..1): 1 means the client saturated a core. */
  loopBusy: number;
  /** The window's requests, one by one, when the plan records them. */
  log?: RequestLogData;
}

export class LoadDriver {
  private histogram = createLatencyHistogram();
  private requests = 0;
  private latencySumUs = 0;
  private timedRequests = 0;
  private sendUsSum = 0;
  private recvUsSum = 0;
  private running = false;
  private inFlight = 0;
  private idleWaiters: Array<() => void> = [];
  private elu: EventLoopUtilization = performance.eventLoopUtilization();
  private timer?: NodeJS.Timeout;
  private recorder?: RequestRecorder;

  constructor(private readonly client: InferClient, private readonly onError: (err: unknown) => void) {}

  start(plan: LoadPlan): void {
    this.running = true;
    this.recorder = plan.record ? new RequestRecorder(plan.record.budget) : undefined;
    if (plan.kind === 'concurrency') {
      for (let i = 0; i < plan.concurrency; i++) {
        void this.closedLoop(plan.sequences ? new SequenceCursor(plan.sequences, plan.sequences.firstUser + i) : undefined);
      }
    } else {
      this.openLoop(plan.kind === 'rate' ? rateSchedule(plan.requestsPerSecond, plan.distribution) : intervalSchedule(plan.intervalsUs, plan.share));
    }
  }

  /** Requests completed since the last snapshot (for count windows and progress). */
  completed(): number {
    return this.requests;
  }

  snapshot(): DriverWindow {
    const now = performance.eventLoopUtilization();
    const window: DriverWindow = {
      histogram: this.histogram,
      latencySumUs: this.latencySumUs,
      requests: this.requests,
      timedRequests: this.timedRequests,
      sendUsSum: this.sendUsSum,
      recvUsSum: this.recvUsSum,
      loopBusy: performance.eventLoopUtilization(now, this.elu).utilization,
      ...(this.recorder ? { log: this.recorder.take() } : {}),
    };
    this.elu = now;
    this.histogram = createLatencyHistogram();
    this.requests = this.latencySumUs = this.timedRequests = this.sendUsSum = this.recvUsSum = 0;
    return window;
  }

  /**
   * Stops sending and resolves once every outstanding request has finished, or after
   * `graceMs` (a hung server must not hang the sweep; closing the client then cancels the rest).
   */
  async stop(graceMs = 10_000): Promise<void> {
    this.running = false;
    if (this.timer) clearTimeout(this.timer);
    if (this.inFlight === 0) return;
    let timeout: NodeJS.Timeout | undefined;
    await Promise.race([
      new Promise<void>((resolve) => this.idleWaiters.push(resolve)),
      new Promise<void>((resolve) => { timeout = setTimeout(resolve, graceMs); }),
    ]);
    clearTimeout(timeout);
  }

  private record(startedAt: number, timing: { sendUs: number; recvUs: number } | undefined): number {
    const end = performance.now();
    this.latencySumUs += recordLatency(this.histogram, (end - startedAt) * 1000);
    this.requests++;
    if (timing) {
      this.timedRequests++;
      this.sendUsSum += timing.sendUs;
      this.recvUsSum += timing.recvUs;
    }
    return end;
  }

  /** A request's start, and an onResponse for a streaming client, when the setting records requests. */
  private begin(startedAt: number): Begun {
    const recorder = this.recorder;
    if (!recorder) return NOT_RECORDED;
    const kept = recorder.begin(startedAt);
    return { recorder, ...(kept ? { kept, onResponse: () => recorder.response(kept, performance.now()) } : {}) };
  }

  /**
   * Keeps a finished request: the responses a streaming client reported one by one, else its end
   * as its one response (as perf_analyzer times a request).
   */
  private keep(begun: Begun, end: number, step: SequenceStep | undefined): void {
    const { recorder, kept } = begun;
    if (!recorder) return;
    if (kept && !this.client.streamsResponses) recorder.response(kept, end);
    recorder.finish(kept, step?.id ?? 0);
  }

  private settle(): void {
    this.inFlight--;
    if (this.inFlight === 0 && !this.running) for (const wake of this.idleWaiters.splice(0)) wake();
  }

  /** One virtual user; with a cursor, each request carries that user's sequence parameters. */
  private async closedLoop(cursor?: SequenceCursor): Promise<void> {
    let sinceYield = 0;
    while (this.running) {
      // A target that completes in microtasks (an in-process model answering at once) would
      // otherwise starve timers and I/O, window ends included; give the event loop a turn.
      if (++sinceYield === YIELD_EVERY) {
        sinceYield = 0;
        await new Promise<void>((resolve) => setImmediate(resolve));
        if (!this.running) break;
      }
      const t0 = performance.now();
      this.inFlight++;
      try {
        const step = cursor?.next();
        const begun = this.begin(t0);
        const timing = await this.client.infer(step, begun.onResponse);
        this.keep(begun, this.record(t0, timing), step);
      } catch (err) {
        this.running = false;
        this.onError(err);
      } finally {
        this.settle();
      }
    }
  }

  private openLoop(schedule: SendSchedule): void {
    let nextAt = performance.now() + schedule.firstMs;
    const fire = (scheduledAt: number) => {
      this.inFlight++;
      const begun = this.begin(scheduledAt);
      this.client.infer(undefined, begun.onResponse).then(
        (timing) => { this.keep(begun, this.record(scheduledAt, timing), undefined); this.settle(); },
        (err) => { this.running = false; this.settle(); this.onError(err); },
      );
    };
    const tick = () => {
      if (!this.running) return;
      const now = performance.now();
      // Timers are coarse: send everything that is due, each measured from its own scheduled time.
      while (nextAt <= now && this.running) {
        fire(nextAt);
        nextAt += schedule.nextGapMs();
      }
      this.timer = setTimeout(tick, Math.max(0, nextAt - performance.now()));
    };
    tick();
  }
}
