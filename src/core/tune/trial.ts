/** One measured trial: a candidate and perf's figures for it (or why it could not be measured). */
import type { Candidate } from './candidate.js';
import type { TrialFigures } from './objective.js';

export interface Trial extends TrialFigures {
  key: string;
  candidate: Candidate;
  /** Windows perf measured until the last ones were stable. */
  windows: number;
  /** Set when the trial did not produce figures (did not stabilise, failed to load): why. */
  error?: string;
}

export function measured(t: Trial): boolean {
  return t.error === undefined;
}
