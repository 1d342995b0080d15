/**
 * Triton's OpenTelemetry trace mode (`--trace-config mode=opentelemetry`): the traces the native
 * samplers collect (the same as Triton's JSON trace files hold) as OTLP spans, shaped as Triton's:
 * for each traced request a top-level span `InferRequest` (the front end's receive and send
 * timestamps and INFER_RESPONSE_COMPLETE as events), a span named after the model (REQUEST_START, QUEUE_START, REQUEST_END) and
 * a `compute` span (COMPUTE_START, COMPUTE_INPUT_END, COMPUTE_OUTPUT_START, COMPUTE_END); an
 * ensemble's step is a model span under the ensemble's model span, in the same trace. Every span is
 * of kind SERVER, and the model span has Triton's attributes triton.model_name,
 * triton.model_version, triton.trace_id, triton.trace_parent_id (gebe's trace ids, 0: no parent)
 * and, when the request has an id, triton.request_id. A request
 * whose client sent a W3C `traceparent` continues that trace: its InferRequest span is a child of
 * the client's span.
 *
 * A step's trace finishes before its ensemble's, so it waits here until the ensemble's arrives and
 * gives it its OTel trace and parent span; a bounded number wait, and one whose ensemble never
 * comes is sent at the end as a trace of its own. A request JS runs got its ids as it started
 * (executor/otel-ids.ts: model.py may have handed its context on), and keeps them.
 */
import { randomBytes } from 'node:crypto';
import { stampName, TRACE_STAMPS, type NativeRequestTrace, type TraceStampName } from '../executor/trace-record.js';
import { takeOtelIds, type OtelIds } from '../executor/otel-ids.js';

export interface OtelAttribute {
  key: string;
  value: { stringValue: string } | { intValue: string };
}

/** A span in OTLP's JSON encoding (ids as hex, times as decimal strings of Unix nanoseconds). */
export interface OtelSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  /** 2: SERVER (Triton gives every span this kind). */
  kind: 2;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  attributes: OtelAttribute[];
  events: Array<{ timeUnixNano: string; name: string }>;
}

const ROOT_STAMPS: readonly TraceStampName[] = ['RECV_START', 'RECV_END', 'INFER_RESPONSE_COMPLETE', 'SEND_START', 'SEND_END'];
const MODEL_STAMPS: readonly TraceStampName[] = ['REQUEST_START', 'QUEUE_START', 'REQUEST_END'];
const COMPUTE_STAMPS: readonly TraceStampName[] = ['COMPUTE_START', 'COMPUTE_INPUT_END', 'COMPUTE_OUTPUT_START', 'COMPUTE_END'];

/** Steps waiting for their ensemble's trace, and the recent traces steps may still name. */
const MAX_WAITING = 4096;
const MAX_KNOWN = 16384;

const hex = (bytes: number) => randomBytes(bytes).toString('hex');
const text = (key: string, value: string): OtelAttribute => ({ key, value: { stringValue: value } });
const int = (key: string, value: number): OtelAttribute => ({ key, value: { intValue: String(value) } });

/** Where a trace's spans hang: its OTel trace and the model span its steps go under. */
interface Placement {
  traceId: string;
  modelSpanId: string;
}

export class OtelSpanBuilder {
  private readonly waiting = new Map<number, NativeRequestTrace[]>();
  private waitingCount = 0;
  private readonly known = new Map<number, Placement>();

  /** `toUnixNs`: a steady-clock timestamp (the traces') as Unix nanoseconds. */
  constructor(private readonly toUnixNs: (steadyNs: bigint) => bigint) {}

  /** The spans of the traces that can be placed now (steps wait for their ensemble's trace). */
  add(traces: readonly NativeRequestTrace[]): OtelSpan[] {
    const out: OtelSpan[] = [];
    for (const trace of traces) {
      const ids = takeOtelIds(trace.id);
      const parent = trace.parentId > 0 ? this.known.get(trace.parentId) : undefined;
      if (trace.parentId > 0 && !parent && !ids) {
        this.wait(trace, out);
        continue;
      }
      this.place(trace, parent, out, ids);
    }
    return out;
  }

  /** The server stops: steps whose ensemble never came go as traces of their own. */
  flush(): OtelSpan[] {
    const out: OtelSpan[] = [];
    for (const traces of this.waiting.values()) for (const t of traces) this.place(t, undefined, out);
    this.waiting.clear();
    this.waitingCount = 0;
    return out;
  }

  private wait(trace: NativeRequestTrace, out: OtelSpan[]): void {
    if (this.waitingCount >= MAX_WAITING) {
      // The oldest waiting step goes now, as a trace of its own.
      const [parentId, traces] = this.waiting.entries().next().value as [number, NativeRequestTrace[]];
      this.waiting.delete(parentId);
      this.waitingCount -= traces.length;
      for (const t of traces) this.place(t, undefined, out);
    }
    const list = this.waiting.get(trace.parentId) ?? [];
    list.push(trace);
    this.waiting.set(trace.parentId, list);
    this.waitingCount++;
  }

  /** `ids`: those the trace was given as its request started, if it was. */
  private place(trace: NativeRequestTrace, parent: Placement | undefined, out: OtelSpan[], ids?: OtelIds): void {
    const ns = (name: TraceStampName) => trace.ns[TRACE_STAMPS.indexOf(name)] ?? 0n;
    const unix = (v: bigint) => String(this.toUnixNs(v));
    const events = (names: readonly TraceStampName[]) => names.filter((n) => ns(n) !== 0n)
      .map((n) => ({ timeUnixNano: unix(ns(n)), name: stampName(trace.protocol, n) }));
    const reached = TRACE_STAMPS.map((n) => ns(n)).filter((v) => v !== 0n);
    if (reached.length === 0) return;
    const first = reached.reduce((a, b) => (a < b ? a : b));
    const last = reached.reduce((a, b) => (a > b ? a : b));
    const modelAttributes = [text('triton.model_name', trace.model), int('triton.model_version', Number(trace.version)),
      int('triton.trace_id', trace.id), int('triton.trace_parent_id', trace.parentId),
      ...(trace.requestId ? [text('triton.request_id', trace.requestId)] : [])];
    // A request whose client sent its trace context continues the client's trace, under its span.
    const context = !parent && trace.context ? { traceId: trace.context.slice(3, 35), spanId: trace.context.slice(36, 52) } : undefined;
    const traceId = ids?.traceId ?? parent?.traceId ?? context?.traceId ?? hex(16);
    const span = (name: string, parentSpanId: string, start: bigint, end: bigint, names: readonly TraceStampName[], attributes: OtelAttribute[] = [], spanId = hex(8)): OtelSpan => ({
      traceId, spanId, parentSpanId, name, kind: 2, startTimeUnixNano: unix(start), endTimeUnixNano: unix(end), attributes, events: events(names),
    });
    let modelParent = ids?.parentSpanId ?? parent?.modelSpanId ?? '';
    if (ids ? ids.rootSpanId !== undefined : !parent) {
      const root = span('InferRequest', context?.spanId ?? '', first, last, ROOT_STAMPS, [], ids?.rootSpanId);
      out.push(root);
      modelParent = root.spanId;
    }
    const model = span(trace.model, modelParent, ns('REQUEST_START') || first, ns('REQUEST_END') || last, MODEL_STAMPS, modelAttributes, ids?.modelSpanId);
    out.push(model);
    if (ns('COMPUTE_START') !== 0n) out.push(span('compute', model.spanId, ns('COMPUTE_START'), ns('COMPUTE_END') || last, COMPUTE_STAMPS));
    this.remember(trace.id, { traceId, modelSpanId: model.spanId });
    const steps = this.waiting.get(trace.id);
    if (steps) {
      this.waiting.delete(trace.id);
      this.waitingCount -= steps.length;
      for (const step of steps) this.place(step, { traceId, modelSpanId: model.spanId }, out);
    }
  }

  private remember(id: number, placement: Placement): void {
    if (this.known.size >= MAX_KNOWN) this.known.delete(this.known.keys().next().value as number);
    this.known.set(id, placement);
  }
}
