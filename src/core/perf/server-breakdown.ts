/**
 * The server's side of a window, from the difference of two statistics snapshots (Triton's
 * statistics extension): per-request averages of queue and compute phases, and the inference and
 * execution counts, exactly what perf_analyzer derives.
 */
import type { ModelStatistics } from '../executor/types.js';

/** Raw sums, so windows can be merged by adding before averaging. */
export interface ServerDelta {
  requests: number;
  inferenceCount: number;
  executionCount: number;
  queueNs: number;
  computeInputNs: number;
  computeInferNs: number;
  computeOutputNs: number;
}

/** Phases the server's statistics could not account for are NaN. */
export interface ServerBreakdown {
  /** Inferences the server counted (batch-weighted) and model executions. */
  inferenceCount: number;
  executionCount: number;
  /** Per-request averages in µs. */
  queueUs: number;
  computeInputUs: number;
  computeInferUs: number;
  computeOutputUs: number;
}

/**
 * A counter past 2^53 cannot be subtracted exactly in JS, and in practice means the server
 * recorded a negative duration as an unsigned 64-bit value; such a phase is reported as unknown
 * (NaN → "-") rather than as a nonsense average.
 */
function trustworthy(v: number): boolean {
  return Number.isFinite(Number(v)) && Number(v) >= 0 && Number(v) <= Number.MAX_SAFE_INTEGER;
}

export function statisticsDelta(before: ModelStatistics, after: ModelStatistics): ServerDelta {
  const d = (a: number, b: number) => (trustworthy(a) && trustworthy(b) ? Math.max(0, Number(a) - Number(b)) : Number.NaN);
  const s = after.inference_stats;
  const p = before.inference_stats;
  return {
    requests: d(s.success.count, p.success.count),
    inferenceCount: d(after.inference_count, before.inference_count),
    executionCount: d(after.execution_count, before.execution_count),
    queueNs: d(s.queue.ns, p.queue.ns),
    computeInputNs: d(s.compute_input.ns, p.compute_input.ns),
    computeInferNs: d(s.compute_infer.ns, p.compute_infer.ns),
    computeOutputNs: d(s.compute_output.ns, p.compute_output.ns),
  };
}

export function addDeltas(parts: readonly ServerDelta[]): ServerDelta {
  const total: ServerDelta = { requests: 0, inferenceCount: 0, executionCount: 0, queueNs: 0, computeInputNs: 0, computeInferNs: 0, computeOutputNs: 0 };
  for (const p of parts) for (const key of Object.keys(total) as Array<keyof ServerDelta>) total[key] += p[key];
  return total;
}

export function breakdown(delta: ServerDelta): ServerBreakdown {
  const per = (ns: number) => (delta.requests > 0 ? ns / delta.requests / 1000 : 0);
  return {
    inferenceCount: delta.inferenceCount,
    executionCount: delta.executionCount,
    queueUs: per(delta.queueNs),
    computeInputUs: per(delta.computeInputNs),
    computeInferUs: per(delta.computeInferNs),
    computeOutputUs: per(delta.computeOutputNs),
  };
}
