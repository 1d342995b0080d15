/**
 * The compare report as plain data: what --json prints and what the table and HTML reporters
 * format. One entry per model output.
 */
import type { OutputMetrics, Thresholds } from './metrics.js';

export interface OutputComparison {
  name: string;
  datatype: string;
  /** The reference's datatype when it differs (then values are still compared as numbers). */
  referenceDatatype?: string;
  pass: boolean;
  /** Why it failed, in words (thresholds missed, shapes that disagree). */
  reasons: string[];
  /** Absent when the output could not be compared at all (a shape mismatch). */
  metrics?: OutputMetrics;
}

export interface CompareReport {
  model: { name: string; version: string };
  /** Where the model ran and what it was compared with. */
  model_target: string;
  reference: string;
  samples: string[];
  thresholds: Thresholds;
  pass: boolean;
  outputs: OutputComparison[];
}

/** A number the way the table and the HTML show it: short, exact zeros as 0. */
export function formatMetric(v: number): string {
  if (Number.isNaN(v)) return 'NaN';
  if (!Number.isFinite(v)) return v > 0 ? 'inf' : '-inf';
  if (v === 0) return '0';
  const a = Math.abs(v);
  return a >= 1e-3 && a < 1e5 ? String(+v.toPrecision(5)) : v.toExponential(2);
}

/** An element's value in the list of worst elements: enough digits to see where two differ. */
export function formatValue(v: number): string {
  return Number.isFinite(v) ? String(+v.toPrecision(8)) : formatMetric(v);
}

export function formatPercent(share: number): string {
  return share === 0 ? '0%' : `${+(share * 100).toPrecision(3)}%`;
}
