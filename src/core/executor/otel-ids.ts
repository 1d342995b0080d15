/**
 * OpenTelemetry ids given to the traces of requests JS runs (Python models, ensembles) when they
 * start, in mode opentelemetry: Triton sets a request's trace context (its model span's W3C
 * `traceparent`) at REQUEST_START, and a Python model reads it with `request.trace().get_context()`.
 * Other traces get their ids when their spans are built (server/otel-spans.ts), which takes these.
 * A bounded number wait (the oldest go first): a trace the native side dropped never takes its ids.
 */
import { randomBytes } from 'node:crypto';

export interface OtelIds {
  /** 32 hex digits: the OTel trace (a client's that sent one, its parent's for a step). */
  traceId: string;
  /** A request's own InferRequest span (16 hex digits); none for a step, which hangs under its parent. */
  rootSpanId?: string;
  /** The model span's id, and its parent's (the InferRequest span, or the parent request's model span). */
  modelSpanId: string;
  parentSpanId: string;
}

const MAX_WAITING = 16384;
const assigned = new Map<number, OtelIds>();
let on = false;

const hex = (bytes: number) => randomBytes(bytes).toString('hex');

/** Mode opentelemetry starts (true) or stops (ids given already stay, for the last spans). */
export function assignOtelIds(enabled: boolean): void {
  on = enabled;
}

/**
 * The ids of trace `id` as its request starts: a step's under its parent's (`parent`), a request
 * of its own in the client's trace (`traceparent`, checked already) or a new one; undefined
 * unless mode opentelemetry is on (or for a step whose parent has none).
 */
export function startOtelIds(id: number, parent: OtelIds | undefined, traceparent?: string): OtelIds | undefined {
  if (!on) return undefined;
  let ids: OtelIds;
  if (parent) {
    ids = { traceId: parent.traceId, modelSpanId: hex(8), parentSpanId: parent.modelSpanId };
  } else {
    const rootSpanId = hex(8);
    ids = { traceId: traceparent ? traceparent.slice(3, 35) : hex(16), rootSpanId, modelSpanId: hex(8), parentSpanId: rootSpanId };
  }
  if (assigned.size >= MAX_WAITING) assigned.delete(assigned.keys().next().value as number);
  assigned.set(id, ids);
  return ids;
}

/** The ids trace `id` was given as it started, once (the span builder takes them). */
export function takeOtelIds(id: number): OtelIds | undefined {
  const ids = assigned.get(id);
  assigned.delete(id);
  return ids;
}

/** Triton's trace context of a request: its model span's W3C traceparent, as JSON. */
export function otelContext(ids: OtelIds): string {
  return JSON.stringify({ traceparent: `00-${ids.traceId}-${ids.modelSpanId}-01` });
}
