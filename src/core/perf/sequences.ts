/**
 * Sequences for stateful models, as perf_analyzer drives them (--sequence-length,
 * --sequence-id-range): every virtual user (one outstanding request of the concurrency) runs its
 * own sequences one after another, each about `length` requests long (perf_analyzer's
 * --sequence-length-variation: a length drawn uniformly within ±variation% of it), the first
 * flagged START and the last END, with ids from its own share of the id range, so no two live
 * sequences share an id.
 */

export interface SequenceSpec {
  /** Requests per sequence (the mean, with `variation`). */
  length: number;
  /** Percent the length of each sequence may differ from `length` (perf_analyzer's default 20). */
  variation: number;
  /** The id range, inclusive (ids are >= 1: 0 means "no sequence"). */
  idStart: number;
  idEnd: number;
}

/** A driver's share of the virtual users: users firstUser .. firstUser + count - 1 of `users`. */
export interface SequenceLoad extends SequenceSpec {
  firstUser: number;
  users: number;
}

import type { SequenceStep } from '../kserve/client/types.js';

export type { SequenceStep };

/** perf_analyzer's default sequence length, used when the model has sequence_batching. */
export const DEFAULT_SEQUENCE_LENGTH = 20;
export const DEFAULT_SEQUENCE_LENGTH_VARIATION = 20;
export const DEFAULT_SEQUENCE_ID_RANGE = { idStart: 1, idEnd: Number.MAX_SAFE_INTEGER };

/** How many ids each of `users` virtual users owns (at least 1; the caller checks the range is wide enough). */
export function idsPerUser(spec: SequenceSpec, users: number): number {
  return Math.max(1, Math.floor((spec.idEnd - spec.idStart + 1) / Math.max(1, users)));
}

/** One virtual user's walk through its sequences. */
export class SequenceCursor {
  private readonly base: number;
  private readonly span: number;
  private sequence = 0;
  private step = 0;
  private length = 1;

  constructor(private readonly load: SequenceLoad, user: number, private readonly random: () => number = Math.random) {
    this.span = idsPerUser(load, load.users);
    this.base = load.idStart + user * this.span;
  }

  next(): SequenceStep {
    const start = this.step === 0;
    if (start) this.length = this.drawLength();
    const end = this.step === this.length - 1;
    const id = this.base + (this.sequence % this.span);
    if (end) {
      this.step = 0;
      this.sequence += 1;
    } else {
      this.step += 1;
    }
    return { id, start, end };
  }

  private drawLength(): number {
    const spread = (this.load.length * this.load.variation) / 100;
    return Math.max(1, Math.round(this.load.length + spread * (2 * this.random() - 1)));
  }
}
