/**
 * Writes the traces the native samplers collect (native/src/trace/) as Triton's JSON trace files,
 * which Triton's trace_summary.py reads: one JSON array per file, and for each traced request an
 * object naming it ({id, model_name, model_version, request_id when the request has an id, and for
 * an ensemble's step parent_id}), at level
 * TIMESTAMPS one with its timestamps ({id, timestamps: [{name, ns}]}, steady-clock nanoseconds, in
 * the order they happen), and at level TENSORS one per input as queued and output as the model gave
 * it ({id, activity: TENSOR_QUEUE_INPUT | TENSOR_BACKEND_OUTPUT, tensor: {name, data, shape,
 * dtype}}, data and shape as comma-separated text).
 *
 * Files: with log_frequency 0, every trace goes to the trace file, written as traces finish and
 * completed (its closing bracket) when the server stops; with log_frequency N, each N traces
 * complete a file `<trace file>.<i>` (i from 0), and a setting whose trace_count runs out completes
 * the file it is in, as Triton does. A few times a second this takes what has finished.
 */
import { closeSync, openSync, writeSync } from 'node:fs';
import type { NativeRequestTrace, NativeTrace, TracedTensor } from '../executor/trace-addon.js';
import { stampName, TRACE_STAMPS } from '../executor/trace-record.js';
import { halfToNumber, typedView, type Datatype } from '../kserve/datatypes.js';
import { bytesToJsonText } from '../kserve/codec/json-tensor.js';
import type { Logger } from './logger.js';

const DRAIN_INTERVAL_MS = 200;

/** The objects of one trace in Triton's file format, as JSON text: its name, its timestamps, its tensors. */
export function traceEntries(trace: NativeRequestTrace): string[] {
  const stamps: string[] = [];
  // 0n: not reached (a request no native front end received has no RECV or SEND timestamps).
  trace.ns.forEach((ns, i) => {
    if (ns !== 0n) stamps.push(`{"name":"${stampName(trace.protocol, TRACE_STAMPS[i]!)}","ns":${ns}}`);
  });
  const version = /^\d+$/.test(trace.version) ? trace.version : JSON.stringify(trace.version);
  // An ensemble step names the ensemble request's trace, as Triton's parent_id.
  const parent = trace.parentId > 0 ? `,"parent_id":${trace.parentId}` : '';
  const requestId = trace.requestId ? `,"request_id":${JSON.stringify(trace.requestId)}` : '';
  const entries = [`{"id":${trace.id},"model_name":${JSON.stringify(trace.model)},"model_version":${version}${requestId}${parent}}`];
  if (trace.timestamps) entries.push(`{"id":${trace.id},"timestamps":[${stamps.join(',')}]}`);
  for (const t of trace.tensors) {
    const tensor = `{"name":${JSON.stringify(t.name)},"data":${JSON.stringify(tensorText(t))},"shape":"${t.shape.join(',')}","dtype":${JSON.stringify(t.datatype)}}`;
    entries.push(`{"id":${trace.id},"activity":"${t.output ? 'TENSOR_BACKEND_OUTPUT' : 'TENSOR_QUEUE_INPUT'}","tensor":${tensor}}`);
  }
  return entries;
}

/** A traced tensor's elements as Triton's trace writes them: comma-separated (BYTES: each as a JSON string). */
function tensorText(t: TracedTensor): string {
  const data = new Uint8Array(t.data.buffer, t.data.byteOffset, t.data.byteLength);
  if (t.datatype === 'FP16' || t.datatype === 'BF16') {
    return Array.from(typedView(t.datatype, data) as Uint16Array, (bits) => String(halfToNumber(bits, t.datatype === 'BF16'))).join(',');
  }
  try {
    return bytesToJsonText(t.datatype as Datatype, data, t.name).slice(1, -1);
  } catch {
    return '';  // bytes that are not whole elements of the datatype (never from a checked request)
  }
}

export class TraceWriter {
  private fd?: number;
  /** The log_frequency the open file was begun under. */
  private openFrequency = 0;
  private inFile = 0;
  private index = 0;
  private failed = false;
  private readonly timer: NodeJS.Timeout;

  /** `logFrequency`: the server's current log_frequency (it may change while the server runs). */
  constructor(private readonly file: string, private readonly logFrequency: () => number, private readonly native: NativeTrace, private readonly log: Logger) {
    this.timer = setInterval(() => this.drain(), DRAIN_INTERVAL_MS);
    this.timer.unref();
  }

  /** Writes what has finished since the last call. */
  drain(): void {
    const { traces, dropped } = this.native.take();
    if (dropped > 0) this.log.warn('traces dropped: they finished faster than they could be written', { dropped });
    const cut = traces.filter((t) => t.tensorsLeftOut).map((t) => t.id);
    if (cut.length > 0) this.log.warn('traced tensors past 16 MiB a trace left out', { traces: cut.slice(0, 10).join(',') });
    if (this.fd !== undefined && this.openFrequency !== this.logFrequency()) this.complete();
    for (const trace of traces) {
      if (this.failed) return;
      this.append(traceEntries(trace));
      const frequency = this.logFrequency();
      if (frequency > 0 && (this.inFile >= frequency || trace.last)) this.complete();
    }
  }

  /** The server stops: the last traces are written and the open file completed. */
  close(): void {
    clearInterval(this.timer);
    this.drain();
    this.complete();
  }

  private append(entries: string[]): void {
    this.guard(() => {
      if (this.fd === undefined) {
        this.openFrequency = this.logFrequency();
        const path = this.openFrequency > 0 ? `${this.file}.${this.index++}` : this.file;
        this.fd = openSync(path, 'w', 0o644);
        writeSync(this.fd, '[');
      }
      writeSync(this.fd, (this.inFile === 0 ? '\n' : ',\n') + entries.join(',\n'));
      this.inFile++;
    });
  }

  private complete(): void {
    if (this.fd === undefined) return;
    const fd = this.fd;
    this.fd = undefined;
    this.inFile = 0;
    this.guard(() => {
      try {
        writeSync(fd, '\n]\n');
      } finally {
        closeSync(fd);
      }
    });
  }

  /** A file that cannot be written stops the tracing output, once, with the reason; serving goes on. */
  private guard(write: () => void): void {
    if (this.failed) return;
    try {
      write();
    } catch (err) {
      this.failed = true;
      this.log.error('cannot write the trace file: no more traces are written', { file: this.file, reason: (err as Error).message });
    }
  }
}
