/**
 * The server's side of a window, from the difference of two statistics snapshots (Triton's
 * statistics extension): per-request averages of queue and compute phases, and the inference and
 * execution counts, exactly what perf_analyzer derives. For an ensemble, as perf_analyzer: each
 * composing model gets its own breakdown, and the ensemble's queue and compute phases are the sums
 * of its composing models' per-request averages. With Triton's response cache, as perf_analyzer: a
 * hit has no compute phases, so those are averages per computed request (the misses), and the
 * cache's own times are averages per hit and per miss.
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
  /** The response cache's (zero where the model has none): hits and their lookups, misses and their lookups and insertions. */
  cacheHitCount: number;
  cacheHitNs: number;
  cacheMissCount: number;
  cacheMissNs: number;
  /** An ensemble's composing models, each with its own delta. */
  composing?: ComposingDelta[];
}

export type ComposingDelta = Omit<ServerDelta, 'composing'> & { name: string; version: string };

/** The statistics a window starts or ends with: the model's, and its composing models' for an ensemble. */
export interface ServerSnapshot {
  model: ModelStatistics;
  composing: ModelStatistics[];
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
  /** Where the server's response cache saw the model's requests: counts, and µs per hit and per miss. */
  cache?: { hitCount: number; missCount: number; hitUs: number; missUs: number };
  /** An ensemble's composing models (their own requests, averages per request of theirs). */
  composing?: Array<Omit<ServerBreakdown, 'composing'> & { name: string; version: string }>;
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
    cacheHitCount: d(s.cache_hit?.count ?? 0, p.cache_hit?.count ?? 0),
    cacheHitNs: d(s.cache_hit?.ns ?? 0, p.cache_hit?.ns ?? 0),
    cacheMissCount: d(s.cache_miss?.count ?? 0, p.cache_miss?.count ?? 0),
    cacheMissNs: d(s.cache_miss?.ns ?? 0, p.cache_miss?.ns ?? 0),
  };
}

/** The delta of two snapshots, the composing models' included (matched by name and version). */
export function snapshotDelta(before: ServerSnapshot, after: ServerSnapshot): ServerDelta {
  const delta = statisticsDelta(before.model, after.model);
  if (after.composing.length === 0) return delta;
  const composing: ComposingDelta[] = [];
  for (const a of after.composing) {
    const b = before.composing.find((s) => s.name === a.name && s.version === a.version);
    if (b) composing.push({ name: a.name, version: a.version, ...statisticsDelta(b, a) });
  }
  return { ...delta, composing };
}

const SUMS = [
  'requests', 'inferenceCount', 'executionCount', 'queueNs', 'computeInputNs', 'computeInferNs', 'computeOutputNs',
  'cacheHitCount', 'cacheHitNs', 'cacheMissCount', 'cacheMissNs',
] as const;

function zeroDelta(): Omit<ServerDelta, 'composing'> {
  return Object.fromEntries(SUMS.map((k) => [k, 0])) as Omit<ServerDelta, 'composing'>;
}

function addInto<T extends Omit<ServerDelta, 'composing'>>(total: T, part: Omit<ServerDelta, 'composing'>): T {
  for (const key of SUMS) total[key] += part[key];
  return total;
}

export function addDeltas(parts: readonly ServerDelta[]): ServerDelta {
  const total: ServerDelta = zeroDelta();
  const composing = new Map<string, ComposingDelta>();
  for (const p of parts) {
    addInto(total, p);
    for (const c of p.composing ?? []) {
      const key = `${c.name}\0${c.version}`;
      const sum = composing.get(key) ?? { name: c.name, version: c.version, ...zeroDelta() };
      composing.set(key, addInto(sum, c));
    }
  }
  return composing.size > 0 ? { ...total, composing: [...composing.values()] } : total;
}

function phases(delta: Omit<ServerDelta, 'composing'>): Omit<ServerBreakdown, 'composing'> {
  const per = (ns: number, count: number) => (count > 0 ? ns / count / 1000 : 0);
  // A cache hit is a request without compute phases (Triton counts none for it).
  const computed = delta.requests - delta.cacheHitCount;
  const cached = delta.cacheHitCount + delta.cacheMissCount > 0;
  return {
    inferenceCount: delta.inferenceCount,
    executionCount: delta.executionCount,
    queueUs: per(delta.queueNs, delta.requests),
    computeInputUs: per(delta.computeInputNs, computed),
    computeInferUs: per(delta.computeInferNs, computed),
    computeOutputUs: per(delta.computeOutputNs, computed),
    ...(cached ? {
      cache: {
        hitCount: delta.cacheHitCount, missCount: delta.cacheMissCount,
        hitUs: per(delta.cacheHitNs, delta.cacheHitCount), missUs: per(delta.cacheMissNs, delta.cacheMissCount),
      },
    } : {}),
  };
}

export function breakdown(delta: ServerDelta): ServerBreakdown {
  const own = phases(delta);
  if (!delta.composing || delta.composing.length === 0) return own;
  const composing = delta.composing.map((c) => ({ name: c.name, version: c.version, ...phases(c) }));
  const sum = (key: 'queueUs' | 'computeInputUs' | 'computeInferUs' | 'computeOutputUs') => composing.reduce((a, c) => a + c[key], 0);
  return {
    ...own,
    queueUs: sum('queueUs'), computeInputUs: sum('computeInputUs'), computeInferUs: sum('computeInferUs'), computeOutputUs: sum('computeOutputUs'),
    composing,
  };
}
