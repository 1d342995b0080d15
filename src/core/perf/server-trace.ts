/**
 * perf_analyzer's trace options: for the run, the measured model's own trace settings on the
 * server (and the server's log_frequency) are set, and afterwards the model's values are cleared
 * (it follows the global setting again) and log_frequency is put back.
 */
import type { TraceSettings } from '../kserve/client/types.js';
import type { OpenTarget } from './targets.js';

export interface ServerTrace {
  /** The model's own trace_level, trace_rate and trace_count. */
  model: TraceSettings;
  /** The server's log_frequency (gebe serve has one trace file; Triton takes it per model too). */
  logFrequency?: string;
}

/** Applies `trace` for `model`; says on stderr what the server traces and where; resolves to the undo. */
export async function applyServerTrace(target: OpenTarget, model: string, trace: ServerTrace, stderr: { write(s: string): unknown }): Promise<() => Promise<void>> {
  if (!target.updateTraceSettings) return async () => {};
  const update = target.updateTraceSettings.bind(target);
  let frequencyBefore: string | undefined;
  if (trace.logFrequency !== undefined) {
    frequencyBefore = String((await update(undefined, {})).log_frequency ?? '0');
    await update(undefined, { log_frequency: trace.logFrequency });
  }
  const undo = async (): Promise<void> => {
    const cleared = Object.fromEntries(Object.keys(trace.model).map((k) => [k, null]));
    if (Object.keys(cleared).length > 0) await update(model, cleared).catch(() => undefined);
    if (frequencyBefore !== undefined) await update(undefined, { log_frequency: frequencyBefore }).catch(() => undefined);
  };
  let answer: Record<string, string | string[]>;
  try {
    answer = await update(model, trace.model);
  } catch (err) {
    await undo();
    throw err;
  }
  const levels = ([] as string[]).concat(answer.trace_level ?? []).join(',');
  const file = answer.trace_mode === 'opentelemetry' ? '; traces go to the server\'s OpenTelemetry receiver'
    : typeof answer.trace_file === 'string' && answer.trace_file !== '' ? `; traces go to ${answer.trace_file} on the server` : '';
  stderr.write(`tracing '${model}' on the server: level ${levels}, rate ${answer.trace_rate}, count ${answer.trace_count}, log_frequency ${answer.log_frequency}${file}\n`);
  return undo;
}
