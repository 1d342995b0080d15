/** Triton's trace levels: the values of the trace extension's `trace_level` (a list; they add up, OFF alone traces nothing). */
export const TRACE_LEVELS = ['OFF', 'TIMESTAMPS', 'TENSORS'] as const;
export type TraceLevel = (typeof TRACE_LEVELS)[number];

export function isTraceLevel(value: unknown): value is TraceLevel {
  return (TRACE_LEVELS as readonly unknown[]).includes(value);
}
