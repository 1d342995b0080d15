/**
 * Sequences of a Python-backend model with sequence_batching, as Triton's sequence batcher keeps
 * them for it: a sequence starts with a request flagged START and is bound to one instance (the one
 * holding the fewest), so the state model.py keeps per correlation id lives in one process; its
 * requests run there one at a time, in the order they came; it ends after its END request, or when
 * no request came for max_sequence_idle_microseconds. A request of a sequence the model does not
 * hold is refused (Triton's wording, from the native core). An instance takes at most one request
 * of each of its sequences per execute(), oldest first. A rescheduled request (an iterative
 * sequence's next step) goes back first in its sequence's queue.
 */
import { queuedPerSequence, sequenceQueueFull, sequenceStartMissing, type SequenceStep } from '../executor/check-request.js';
import type { ModelConfig } from '../config/model-config.js';
import { InferError } from '../executor/types.js';

/**
 * What a Python model's sequence_batching asks that gebe does not do for Python models: control
 * inputs and implicit state, which it fills only for the models its native core runs (model.py
 * reads correlation_id() and flags() and keeps the state itself). serve refuses the load with it;
 * `gebe validate` warns with it (PYTHON_SEQUENCE_UNSUPPORTED).
 */
export function pythonSequenceRefusal(config: ModelConfig): { field: 'control_input' | 'state'; message: string; hint: string } | undefined {
  const seq = config.sequence_batching as { control_input?: unknown[]; state?: unknown[] } | undefined;
  const field = (seq?.control_input ?? []).length > 0 ? 'control_input' : (seq?.state ?? []).length > 0 ? 'state' : undefined;
  if (config.backend !== 'python' || !field) return undefined;
  return {
    field,
    message: `sequence_batching.${field} is not filled for Python-backend models by gebe`,
    hint: 'remove it, and read request.correlation_id() and request.flags() (pb_utils.TRITONSERVER_REQUEST_FLAG_SEQUENCE_START / _END) in model.py, keeping the state there',
  };
}

/** Sequences held at once (as many as the native batcher lets wait for a slot); a START beyond it is refused until one ends. */
export const MAX_LIVE_SEQUENCES = 65_536;

export interface SequenceItem {
  step: SequenceStep;
  enqueued: bigint;
}

interface Sequence<T extends SequenceItem, I extends object> {
  key: string;
  instance: I;
  queue: T[];
  running: boolean;
  /** An END request is queued or running and no START came after it. */
  closing: boolean;
  idle?: NodeJS.Timeout;
}

export class SequenceSlots<T extends SequenceItem, I extends object> {
  private readonly live = new Map<string, Sequence<T, I>>();
  private readonly of = new Map<T, Sequence<T, I>>();
  /** Sequences each instance holds. */
  private readonly held: Map<I, number>;

  constructor(private readonly model: string, private readonly instances: readonly I[], private readonly idleMs: number) {
    this.held = new Map(instances.map((i) => [i, 0]));
  }

  /** Queues `item` on its sequence; the error that refuses it otherwise. */
  admit(item: T): InferError | undefined {
    const { step } = item;
    let seq = this.live.get(step.key);
    if (!seq || (seq.closing && !step.start)) {
      if (!step.start) return sequenceStartMissing(this.model, step);
      if (!seq) {
        if (this.live.size >= MAX_LIVE_SEQUENCES) {
          return new InferError(`model '${this.model}' holds ${MAX_LIVE_SEQUENCES} sequences; end sequences (sequence_end) or retry later`, 'QUEUE_FULL');
        }
        seq = { key: step.key, instance: this.leastLoaded(), queue: [], running: false, closing: false };
        this.live.set(step.key, seq);
        this.held.set(seq.instance, this.held.get(seq.instance)! + 1);
      }
    }
    if (seq.queue.length >= queuedPerSequence()) return sequenceQueueFull(this.model, step);
    clearTimeout(seq.idle);
    seq.idle = undefined;
    if (step.start) seq.closing = false;
    if (step.end) seq.closing = true;
    seq.queue.push(item);
    this.of.set(item, seq);
    return undefined;
  }

  /** Requests queued (not running) over all sequences. */
  get queued(): number {
    let n = 0;
    for (const seq of this.live.values()) n += seq.queue.length;
    return n;
  }

  /** For `instance`: the next request of each of its idle sequences, oldest first, at most `limit`. */
  take(instance: I, limit: number): T[] {
    const heads: T[] = [];
    for (const seq of this.live.values()) {
      if (seq.instance === instance && !seq.running && seq.queue.length > 0) heads.push(seq.queue[0]!);
    }
    heads.sort((a, b) => (a.enqueued < b.enqueued ? -1 : a.enqueued > b.enqueued ? 1 : 0));
    const taken = heads.slice(0, limit);
    for (const item of taken) {
      const seq = this.of.get(item)!;
      seq.queue.shift();
      seq.running = true;
    }
    return taken;
  }

  /** `item` ran (or failed): its sequence takes its next request, ends after an END, or waits idle. */
  done(item: T): void {
    const seq = this.of.get(item);
    this.of.delete(item);
    if (!seq) return;
    seq.running = false;
    if (item.step.end && seq.queue.length === 0) this.end(seq);
    else if (seq.queue.length === 0) this.arm(seq);
  }

  /** `item` ran and goes again (model.py rescheduled it): first in its sequence's queue, the sequence still held. */
  again(item: T): void {
    const seq = this.of.get(item);
    if (!seq) return;
    seq.running = false;
    seq.queue.unshift(item);
  }

  /** Takes a queued request out (its client went away); false when it is not queued. */
  remove(item: T): boolean {
    const seq = this.of.get(item);
    const at = seq ? seq.queue.indexOf(item) : -1;
    if (!seq || at < 0) return false;
    seq.queue.splice(at, 1);
    this.of.delete(item);
    if (!seq.running && seq.queue.length === 0) this.arm(seq);
    return true;
  }

  /** Every queued request, taken out (the model unloads); no sequence is held after. */
  drain(): T[] {
    const all: T[] = [];
    for (const seq of this.live.values()) {
      clearTimeout(seq.idle);
      all.push(...seq.queue.splice(0));
    }
    this.live.clear();
    for (const i of this.instances) this.held.set(i, 0);
    for (const item of all) this.of.delete(item);
    return all;
  }

  private arm(seq: Sequence<T, I>): void {
    clearTimeout(seq.idle);
    seq.idle = setTimeout(() => this.end(seq), this.idleMs);
    seq.idle.unref();
  }

  private end(seq: Sequence<T, I>): void {
    clearTimeout(seq.idle);
    if (this.live.get(seq.key) !== seq || seq.running || seq.queue.length > 0) return;
    this.live.delete(seq.key);
    this.held.set(seq.instance, this.held.get(seq.instance)! - 1);
  }

  private leastLoaded(): I {
    let best = 0;
    this.instances.forEach((instance, i) => {
      if ((this.held.get(instance) ?? 0) < (this.held.get(this.instances[best]!) ?? 0)) best = i;
    });
    return this.instances[best]!;
  }
}
