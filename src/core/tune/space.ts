/**
 * The values `gebe tune` tries per dimension, smallest first (the quick search starts at index 0
 * of each and grows what helps, as model_analyzer's does). Preferred batch sizes come from the
 * engine's gears when it has them (a .om's compiled gear set), else from powers of two up to
 * max_batch_size.
 */
import type { Candidate } from './candidate.js';

export interface SearchSpace {
  instanceCounts: number[];
  /** undefined: no dynamic batching; else preferred sizes (an empty list: none preferred). */
  batchings: Array<number[] | undefined>;
  delaysUs: number[];
  concurrencies: number[];
}

/** Dimension indices of a point in the space. */
export interface Point {
  instances: number;
  batching: number;
  delay: number;
  concurrency: number;
}

export const DIMENSIONS = ['instances', 'batching', 'delay', 'concurrency'] as const;

export const DEFAULT_DELAYS_US = [0, 100, 500, 2000];

export interface SpaceOptions {
  maxBatchSize: number;
  /** Batch sizes the engine runs natively; empty when any size runs. */
  gears: number[];
  maxInstanceCount: number;
  delaysUs: number[];
  concurrencies: number[];
}

export function buildSpace(o: SpaceOptions): SearchSpace {
  const instanceCounts = Array.from({ length: o.maxInstanceCount }, (_, i) => i + 1);
  if (o.maxBatchSize <= 0) return { instanceCounts, batchings: [undefined], delaysUs: [0], concurrencies: o.concurrencies };
  const sizes = o.gears.length > 0
    ? o.gears.filter((g) => g <= o.maxBatchSize)
    : Array.from({ length: Math.floor(Math.log2(o.maxBatchSize)) + 1 }, (_, i) => 2 ** i).filter((s) => s > 1);
  const top = Math.max(...sizes, o.maxBatchSize);
  const sets: Array<number[] | undefined> = [undefined, []];
  if (sizes.length > 1) sets.push(sizes.slice(-2));
  sets.push([top]);
  const unique = sets.filter((s, i) => s === undefined || sets.findIndex((t) => t !== undefined && t.join() === s.join()) === i);
  return { instanceCounts, batchings: unique, delaysUs: o.delaysUs, concurrencies: o.concurrencies };
}

export function candidateAt(space: SearchSpace, p: Point): Candidate {
  const preferred = space.batchings[p.batching];
  return {
    instanceCount: space.instanceCounts[p.instances]!,
    ...(preferred !== undefined ? { batching: { preferredBatchSizes: preferred, maxQueueDelayUs: space.delaysUs[p.delay]! } } : {}),
    concurrency: space.concurrencies[p.concurrency]!,
  };
}

function size(space: SearchSpace, d: (typeof DIMENSIONS)[number]): number {
  return { instances: space.instanceCounts, batching: space.batchings, delay: space.delaysUs, concurrency: space.concurrencies }[d].length;
}

/** The points one step up each dimension (the delay only matters with batching on). */
export function growNeighbours(space: SearchSpace, p: Point): Point[] {
  const out: Point[] = [];
  for (const d of DIMENSIONS) {
    if (d === 'delay' && space.batchings[p.batching] === undefined) continue;
    if (p[d] + 1 < size(space, d)) out.push({ ...p, [d]: p[d] + 1 });
  }
  return out;
}

/** Every point, for --exhaustive (delays collapse when batching is off). */
export function allPoints(space: SearchSpace): Point[] {
  const out: Point[] = [];
  for (let instances = 0; instances < space.instanceCounts.length; instances++) {
    for (let batching = 0; batching < space.batchings.length; batching++) {
      const delays = space.batchings[batching] === undefined ? 1 : space.delaysUs.length;
      for (let delay = 0; delay < delays; delay++) {
        for (let concurrency = 0; concurrency < space.concurrencies.length; concurrency++) out.push({ instances, batching, delay, concurrency });
      }
    }
  }
  return out;
}
