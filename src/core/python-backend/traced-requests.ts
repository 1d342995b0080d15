/**
 * The traced requests Python models hold right now, by trace id: model.py's BLS request built with
 * `trace=request.trace()` names one, and is traced as its child (Triton's BLS tracing). Only these
 * ids are taken from a stub, at the levels the request is traced with: model.py cannot attach
 * traces to requests it does not hold, or raise their levels.
 */
import type { TraceLink } from '../executor/types.js';

const held = new Map<number, TraceLink>();

/** Holds `link` while its request is the model's; the returned call lets it go. */
export function holdTracedRequest(link: TraceLink): () => void {
  held.set(link.id, link);
  return () => held.delete(link.id);
}

/** The traced request a stub names, if a Python model holds it. */
export function heldTracedRequest(id: unknown): TraceLink | undefined {
  return typeof id === 'number' ? held.get(id) : undefined;
}
