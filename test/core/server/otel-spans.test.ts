/**
 * OtelSpanBuilder: Triton's spans from gebe's traces; an ensemble's steps (which finish first) wait
 * for the ensemble's trace and join it, nested as deep as ensembles go; steps whose ensemble never
 * comes go out as traces of their own at the end; a client's traceparent is continued.
 */
import { describe, expect, it } from 'vitest';
import { TRACE_STAMPS, type NativeRequestTrace } from '../../../src/core/executor/trace-record.js';
import { OtelSpanBuilder, type OtelSpan } from '../../../src/core/server/otel-spans.js';
import { assignOtelIds, otelContext, startOtelIds } from '../../../src/core/executor/otel-ids.js';

function trace(id: number, parentId: number, model: string, stamps: Partial<Record<(typeof TRACE_STAMPS)[number], number>>, extra: Partial<NativeRequestTrace> = {}): NativeRequestTrace {
  return {
    id, parentId, model, version: '1', protocol: parentId === 0 ? 'http' : '', last: false, timestamps: true, tensors: [],
    ns: TRACE_STAMPS.map((name) => BigInt(stamps[name] ?? 0)), ...extra,
  };
}
const modelStamps = (from: number) => ({ REQUEST_START: from, QUEUE_START: from + 1, COMPUTE_START: from + 2, COMPUTE_INPUT_END: from + 3, COMPUTE_OUTPUT_START: from + 4, COMPUTE_END: from + 5, REQUEST_END: from + 6 });
const names = (spans: OtelSpan[]) => spans.map((s) => s.name);
const parentOf = (spans: OtelSpan[], name: string) => spans.find((p) => p.spanId === spans.find((s) => s.name === name)!.parentSpanId)?.name;

describe('OtelSpanBuilder', () => {
  it('makes a request\'s three spans, on the clock it is given', () => {
    const spans = new OtelSpanBuilder((ns) => ns + 1000n).add([trace(1, 0, 'm', { RECV_START: 10, RECV_END: 11, ...modelStamps(20), SEND_START: 30, SEND_END: 31 })]);
    expect(names(spans)).toEqual(['InferRequest', 'm', 'compute']);
    expect(spans[0]).toMatchObject({ parentSpanId: '', kind: 2, startTimeUnixNano: '1010', endTimeUnixNano: '1031' });
    expect(spans[1]).toMatchObject({ kind: 2, startTimeUnixNano: '1020', endTimeUnixNano: '1026' });
    expect(spans[2]).toMatchObject({ kind: 2, startTimeUnixNano: '1022', endTimeUnixNano: '1025' });
    // Triton's attributes, on the model span only; no request id, no triton.request_id.
    expect(spans[1]!.attributes).toEqual([
      { key: 'triton.model_name', value: { stringValue: 'm' } }, { key: 'triton.model_version', value: { intValue: '1' } },
      { key: 'triton.trace_id', value: { intValue: '1' } }, { key: 'triton.trace_parent_id', value: { intValue: '0' } },
    ]);
    expect([spans[0]!.attributes, spans[2]!.attributes]).toEqual([[], []]);
    expect([parentOf(spans, 'm'), parentOf(spans, 'compute')]).toEqual(['InferRequest', 'm']);
  });

  it('holds steps until their ensemble\'s trace comes, nested ensembles too', () => {
    const b = new OtelSpanBuilder((ns) => ns);
    // inner step (3) of an inner ensemble (2) of the outer ensemble (1): they finish innermost first.
    expect(b.add([trace(3, 2, 'leaf', modelStamps(40))])).toEqual([]);
    expect(b.add([trace(2, 1, 'inner', { REQUEST_START: 35, REQUEST_END: 60 })])).toEqual([]);
    const spans = b.add([trace(1, 0, 'outer', { RECV_START: 30, REQUEST_START: 31, REQUEST_END: 70, SEND_END: 71 })]);
    expect(names(spans)).toEqual(['InferRequest', 'outer', 'inner', 'leaf', 'compute']);
    expect(new Set(spans.map((s) => s.traceId)).size).toBe(1);
    expect([parentOf(spans, 'outer'), parentOf(spans, 'inner'), parentOf(spans, 'leaf'), parentOf(spans, 'compute')]).toEqual(['InferRequest', 'outer', 'inner', 'leaf']);
    // A step of an ensemble already sent still joins it.
    const late = b.add([trace(4, 1, 'leaf', modelStamps(50))]);
    expect(late[0]!.traceId).toBe(spans[0]!.traceId);
    expect(late[0]!.parentSpanId).toBe(spans.find((s) => s.name === 'outer')!.spanId);
  });

  it('sends steps whose ensemble never came as traces of their own when flushed', () => {
    const b = new OtelSpanBuilder((ns) => ns);
    expect(b.add([trace(9, 8, 'lost', modelStamps(10))])).toEqual([]);
    const spans = b.flush();
    expect(names(spans)).toEqual(['InferRequest', 'lost', 'compute']);
    expect(b.flush()).toEqual([]);
  });

  it('names the request\'s id and its ensemble\'s trace on the model span', () => {
    const b = new OtelSpanBuilder((ns) => ns);
    b.add([trace(2, 1, 'step', modelStamps(10), { requestId: 'req-7' })]);
    const spans = b.add([trace(1, 0, 'ens', { REQUEST_START: 5, REQUEST_END: 30 }, { requestId: 'req-7' })]);
    const step = spans.find((s) => s.name === 'step')!;
    expect(step.attributes).toContainEqual({ key: 'triton.request_id', value: { stringValue: 'req-7' } });
    expect(step.attributes).toContainEqual({ key: 'triton.trace_parent_id', value: { intValue: '1' } });
  });

  it('keeps the ids a JS-run request was given as it started (model.py may have handed them on)', () => {
    expect(startOtelIds(50, undefined)).toBeUndefined();  // not in mode opentelemetry
    assignOtelIds(true);
    try {
      const ensemble = startOtelIds(51, undefined, '00-0af7651916cd43dd8448eb211c12666c-b7ad6b7169242424-01')!;
      const step = startOtelIds(52, ensemble)!;
      expect(JSON.parse(otelContext(step))).toEqual({ traceparent: `00-0af7651916cd43dd8448eb211c12666c-${step.modelSpanId}-01` });
      const b = new OtelSpanBuilder((ns) => ns);
      // The step needs no wait for its ensemble: it knows its trace and parent span already.
      const stepSpans = b.add([trace(52, 51, 'py', modelStamps(10))]);
      expect(stepSpans.map((x) => [x.name, x.traceId, x.spanId, x.parentSpanId])[0]).toEqual(['py', ensemble.traceId, step.modelSpanId, ensemble.modelSpanId]);
      const spans = b.add([trace(51, 0, 'ens', { REQUEST_START: 5, REQUEST_END: 30 }, { context: '00-0af7651916cd43dd8448eb211c12666c-b7ad6b7169242424-01' })]);
      expect(spans.map((x) => [x.name, x.spanId, x.parentSpanId])).toEqual([
        ['InferRequest', ensemble.rootSpanId, 'b7ad6b7169242424'], ['ens', ensemble.modelSpanId, ensemble.rootSpanId],
      ]);
    } finally {
      assignOtelIds(false);
    }
  });

  it('continues a client\'s trace', () => {
    const context = '00-0af7651916cd43dd8448eb211c12666c-b7ad6b7169242424-01';
    const spans = new OtelSpanBuilder((ns) => ns).add([trace(1, 0, 'm', modelStamps(5), { context })]);
    expect(spans.every((s) => s.traceId === '0af7651916cd43dd8448eb211c12666c')).toBe(true);
    expect(spans[0]!.parentSpanId).toBe('b7ad6b7169242424');
  });
});
