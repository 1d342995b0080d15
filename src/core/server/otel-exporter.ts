/**
 * Sends the traces of `--trace-config mode=opentelemetry` to an OTLP/HTTP receiver (an
 * OpenTelemetry Collector, Jaeger, Tempo: `POST <url>` with OTLP's JSON encoding), batched as
 * Triton's batch span processor does: spans wait in a queue of at most `maxQueueSize`, those
 * being sent included (more are dropped, and counted: a slow receiver never grows the server's
 * memory), and go out `maxExportBatchSize` at a time, when that many wait or every
 * `scheduleDelayMs`. A receiver that fails or does not answer within `exportTimeoutMs` costs
 * the batch it was sent, never a request: serving goes on, and serve logs it once until a batch
 * gets through again.
 */
import type { NativeTrace } from '../executor/trace-addon.js';
import type { Logger } from './logger.js';
import { OtelSpanBuilder, type OtelSpan } from './otel-spans.js';
import { assignOtelIds } from '../executor/otel-ids.js';

export interface OtelOptions {
  /** The receiver's traces endpoint. */
  url: string;
  /** Resource attributes (service.name and any other). */
  resource: Record<string, string>;
  maxQueueSize: number;
  scheduleDelayMs: number;
  maxExportBatchSize: number;
  /** How long one export may take (OTLP exporters' timeout, 10 s); at stop, the wait for all of them. */
  exportTimeoutMs: number;
}

/** Triton's defaults (those of OpenTelemetry's batch span processor, and Triton's service name). */
export const DEFAULT_OTEL_OPTIONS: Readonly<OtelOptions> = {
  url: 'http://localhost:4318/v1/traces',
  resource: { 'service.name': 'triton-inference-server' },
  maxQueueSize: 2048,
  scheduleDelayMs: 5000,
  maxExportBatchSize: 512,
  exportTimeoutMs: 10_000,
};

const DRAIN_INTERVAL_MS = 200;

export class OtelExporter {
  /** Unix minus steady-clock nanoseconds, taken once a drain so the spans of one trace agree. */
  private offset = 0n;
  private readonly builder = new OtelSpanBuilder((steady) => steady + this.offset);
  private readonly queue: OtelSpan[] = [];
  private dropped = 0;
  /** Spans taken from the queue into batches not sent yet (they count against maxQueueSize). */
  private inFlight = 0;
  private failing = false;
  private abandoned = false;
  private sending: Promise<void> = Promise.resolve();
  private readonly drainTimer: NodeJS.Timeout;
  private readonly exportTimer: NodeJS.Timeout;

  constructor(private readonly options: OtelOptions, private readonly native: NativeTrace, private readonly log: Logger, private readonly version: string) {
    // As Triton's OpenTelemetry mode: a client's propagated context is traced whatever the rate.
    native.setPropagation(true);
    assignOtelIds(true);
    this.drainTimer = setInterval(() => this.drain(), DRAIN_INTERVAL_MS);
    this.drainTimer.unref();
    this.exportTimer = setInterval(() => this.exportQueued(), options.scheduleDelayMs);
    this.exportTimer.unref();
  }

  /** Turns what has finished into spans; a full batch goes out at once. */
  drain(): void {
    const { traces, dropped } = this.native.take();
    if (dropped > 0) this.log.warn('traces dropped: they finished faster than they could be exported', { dropped });
    this.offset = BigInt(Date.now()) * 1_000_000n - process.hrtime.bigint();
    this.enqueue(this.builder.add(traces));
  }

  /**
   * The server stops: the last spans go out, waiting at most `exportTimeoutMs` in all for the
   * receiver (batches still unsent then are given up: a receiver that hangs does not hold the stop).
   */
  async close(): Promise<void> {
    clearInterval(this.drainTimer);
    clearInterval(this.exportTimer);
    this.native.setPropagation(false);
    assignOtelIds(false);
    this.drain();
    this.enqueue(this.builder.flush());
    while (this.queue.length > 0) this.exportBatch();
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, this.options.exportTimeoutMs);
      timer.unref();
    });
    await Promise.race([this.sending, deadline]);
    clearTimeout(timer);
    this.abandoned = true;  // batches still waiting are not sent after the stop
  }

  private enqueue(spans: OtelSpan[]): void {
    for (const span of spans) {
      if (this.queue.length + this.inFlight >= this.options.maxQueueSize) this.dropped++;
      else this.queue.push(span);
    }
    if (this.dropped > 0) {
      this.log.warn('trace spans dropped: the export queue is full (raise --trace-config opentelemetry,bsp_max_queue_size)', { dropped: this.dropped });
      this.dropped = 0;
    }
    while (this.queue.length >= this.options.maxExportBatchSize) this.exportBatch();
  }

  private exportQueued(): void {
    this.drain();
    if (this.queue.length > 0) this.exportBatch();
  }

  /** Sends one batch; batches go one after another, in order. */
  private exportBatch(): void {
    const spans = this.queue.splice(0, this.options.maxExportBatchSize);
    const body = JSON.stringify({
      resourceSpans: [{
        resource: { attributes: Object.entries(this.options.resource).map(([key, value]) => ({ key, value: { stringValue: value } })) },
        scopeSpans: [{ scope: { name: 'gebe', version: this.version }, spans }],
      }],
    });
    this.inFlight += spans.length;
    this.sending = this.sending.then(() => this.post(body, spans.length)).finally(() => (this.inFlight -= spans.length));
  }

  private async post(body: string, count: number): Promise<void> {
    if (this.abandoned) return;
    try {
      const res = await fetch(this.options.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body, signal: AbortSignal.timeout(this.options.exportTimeoutMs) });
      await res.arrayBuffer().catch(() => undefined);
      if (!res.ok) throw new Error(`the receiver answered ${res.status}`);
      if (this.failing) this.log.info('trace export works again', { url: this.options.url });
      this.failing = false;
    } catch (err) {
      if (!this.failing) {
        this.log.warn('cannot export traces: spans are dropped until the receiver takes them', { url: this.options.url, spans: count, reason: (err as Error).message });
      }
      this.failing = true;
    }
  }
}
