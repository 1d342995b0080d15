/**
 * Accuracy metrics between an output and its reference, as msit's compare reports them: max and
 * mean absolute error, max relative error, cosine similarity, RMSE, and the share of elements
 * outside tolerance (numpy.allclose's rule: |a - e| > atol + rtol * |e|), plus the worst elements
 * and a histogram of absolute errors. Pure functions over float64 values.
 */

export interface Tolerance {
  atol: number;
  rtol: number;
}

export interface WorstElement {
  /** Which sample (request) the element belongs to. */
  sample: string;
  /** Flat index within the sample's tensor, and the same index per dimension. */
  index: number;
  coords: number[];
  actual: number;
  expected: number;
  absError: number;
}

/** Counts of absolute errors per decade: [0], (0, 1e-9], (1e-9, 1e-8], ... (1e0, ∞). */
export interface ErrorHistogram {
  /** Upper edge of each bin; the first bin holds exact matches, the last has edge Infinity. */
  edges: number[];
  counts: number[];
}

export interface OutputMetrics {
  elements: number;
  maxAbsError: number;
  meanAbsError: number;
  maxRelError: number;
  /** 1 for identical directions; NaN when either side is all zeros (undefined), 1 when both are. */
  cosineSimilarity: number;
  rmse: number;
  /** Share (0..1) of elements with |a - e| > atol + rtol·|e|; NaN disagreements count as outside. */
  outsideShare: number;
  outsideCount: number;
  worst: WorstElement[];
  histogram: ErrorHistogram;
}

/** One sample of one output: its values and the tensor shape (for coordinates). */
export interface SamplePair {
  sample: string;
  shape: number[];
  actual: Float64Array;
  expected: Float64Array;
}

const HISTOGRAM_EDGES = [0, 1e-9, 1e-8, 1e-7, 1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 1e-1, 1, Infinity];

/** Relative errors divide by |expected|, but never by less than this, so exact zeros do not explode. */
const REL_FLOOR = 1e-12;

function coordsOf(index: number, shape: number[]): number[] {
  const coords = new Array<number>(shape.length).fill(0);
  for (let d = shape.length - 1, rest = index; d >= 0; d--) {
    const size = shape[d]! || 1;
    coords[d] = rest % size;
    rest = Math.floor(rest / size);
  }
  return coords;
}

function sameValue(a: number, e: number): boolean {
  return a === e || (Number.isNaN(a) && Number.isNaN(e));
}

/** Metrics over every sample of one output; `worstCount` elements with the largest error are kept. */
export function compareOutput(pairs: readonly SamplePair[], tolerance: Tolerance, worstCount = 5): OutputMetrics {
  let elements = 0;
  let maxAbs = 0;
  let sumAbs = 0;
  let sumSq = 0;
  let maxRel = 0;
  let dot = 0;
  let normA = 0;
  let normE = 0;
  let outside = 0;
  const counts = new Array<number>(HISTOGRAM_EDGES.length).fill(0);
  const worst: WorstElement[] = [];
  for (const pair of pairs) {
    const { actual, expected } = pair;
    for (let i = 0; i < expected.length; i++) {
      const a = actual[i]!;
      const e = expected[i]!;
      // NaN against a number (or ∞ against a finite value) is as wrong as it gets.
      const abs = sameValue(a, e) ? 0 : Number.isFinite(a - e) ? Math.abs(a - e) : Infinity;
      elements++;
      sumAbs += abs;
      sumSq += abs * abs;
      if (abs > maxAbs) maxAbs = abs;
      const rel = abs === 0 ? 0 : abs / Math.max(Math.abs(e), REL_FLOOR);
      if (rel > maxRel) maxRel = rel;
      if (Number.isFinite(a) && Number.isFinite(e)) {
        dot += a * e;
        normA += a * a;
        normE += e * e;
      }
      if (abs > tolerance.atol + tolerance.rtol * Math.abs(e)) outside++;
      counts[HISTOGRAM_EDGES.findIndex((edge) => abs <= edge)]!++;
      if (abs > 0 && (worst.length < worstCount || abs > worst[worst.length - 1]!.absError)) {
        worst.push({ sample: pair.sample, index: i, coords: coordsOf(i, pair.shape), actual: a, expected: e, absError: abs });
        worst.sort((x, y) => y.absError - x.absError);
        if (worst.length > worstCount) worst.pop();
      }
    }
  }
  const cosine = normA === 0 && normE === 0 ? 1 : normA === 0 || normE === 0 ? Number.NaN : dot / Math.sqrt(normA * normE);
  return {
    elements,
    maxAbsError: maxAbs,
    meanAbsError: elements > 0 ? sumAbs / elements : 0,
    maxRelError: maxRel,
    cosineSimilarity: Math.min(1, cosine),
    rmse: elements > 0 ? Math.sqrt(sumSq / elements) : 0,
    outsideShare: elements > 0 ? outside / elements : 0,
    outsideCount: outside,
    worst,
    histogram: { edges: HISTOGRAM_EDGES, counts },
  };
}

export interface Thresholds extends Tolerance {
  /** Largest share (0..1) of elements allowed outside atol/rtol. */
  maxOutsideShare: number;
  /** Smallest cosine similarity allowed, when set. */
  minCosine?: number;
}

/** Whether an output passes, and if not, the reasons in words. */
export function judgeOutput(metrics: OutputMetrics, thresholds: Thresholds): { pass: boolean; reasons: string[] } {
  const reasons: string[] = [];
  if (metrics.outsideShare > thresholds.maxOutsideShare) {
    reasons.push(`${metrics.outsideCount} of ${metrics.elements} elements (${(metrics.outsideShare * 100).toPrecision(3)}%) are outside atol ${thresholds.atol} + rtol ${thresholds.rtol}·|expected|`);
  }
  if (thresholds.minCosine !== undefined && !(metrics.cosineSimilarity >= thresholds.minCosine)) {
    reasons.push(`cosine similarity ${metrics.cosineSimilarity.toPrecision(6)} is below ${thresholds.minCosine}`);
  }
  return { pass: reasons.length === 0, reasons };
}
