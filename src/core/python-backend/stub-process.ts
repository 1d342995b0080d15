/**
 * One Python process running a model instance's model.py through gebe's stub
 * (python/gebe_stub.py), as Triton's python backend runs a stub per instance. Requests go as
 * control messages naming tensors in the shared arena; the answers are copied out of the arena
 * before the next execute reuses it. A process that dies fails the execute in flight; the
 * owner (python-model.ts) starts a new one for the next request.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { Readable, Writable } from 'node:stream';
import { GebeError } from '../../errors.js';
import type { InferTensor } from '../executor/types.js';
import type { Logger } from '../server/logger.js';
import { ControlChannel, MAX_CONTROL_MESSAGE_BYTES, type ControlMessage } from './control-channel.js';
import { CustomMetricHandles, ProtocolError } from './custom-metrics.js';
import { fromInline } from './inline-tensors.js';
import type { Interpreter } from './interpreter.js';
import { LineLog } from './line-log.js';
import { parseParameters, type ParameterMap } from './parameters.js';
import { align, ARENA_KEEP_BYTES, SharedArena } from './shared-arena.js';

export const STUB_SCRIPT = fileURLToPath(new URL('../../../python/gebe_stub.py', import.meta.url));

export interface StubOptions {
  interpreter: Interpreter;
  modelName: string;
  instanceName: string;
  modelFile: string;
  /** initialize(args): Triton's keys, all strings. */
  args: Record<string, string>;
  /** The most shared memory one execute may use (inputs, outputs and BLS tensors together). */
  shmCap: number;
  log: Logger;
  /** Runs a BLS request the stub sent during execute(), sending its reply (a decoupled one's replies) through `send`. */
  bls(message: ControlMessage, arena: SharedArena, send: (reply: ControlMessage) => void): Promise<void>;
  /** Runs a model loading API call (pb_utils.load_model and the others), sending its reply through `send`. */
  modelControl(message: ControlMessage, send: (reply: ControlMessage) => void): Promise<void>;
  /** Called once when the process has exited (expectedly or not), with why, in the words requests fail with. */
  onExit?(reason: string): void;
  /**
   * A decoupled model (model_transaction_policy { decoupled: true }): execute() answers nothing
   * itself, and each response model.py sends (from execute() or later, from its own threads)
   * comes to `onResponse` with the key of its request; `answer` is undefined for a final flag sent
   * without a response.
   */
  decoupled?: boolean;
  onResponse?(key: number, answer: ExecuteAnswer | undefined, final: boolean): void;
  /** sequence_batching { iterative_sequence: true }: model.py may reschedule requests (set_release_flags). */
  iterative?: boolean;
}

export interface ExecuteRequest {
  id?: string;
  /** A decoupled model's responses name their request by this key. */
  key?: number;
  inputs: InferTensor[];
  /** Requested output names; empty = all. */
  outputs: string[];
  /** The request's parameters for model.py's request.parameters(). */
  parameters?: Record<string, string | number | boolean>;
  /** The request's timeout in microseconds (request.timeout(); 0 when it set none). */
  timeoutUs?: number;
  /**
   * A sequence model's request: its id as a key ("u:7", "s:abc": correlation_id() is 7 or "abc")
   * and its flags (TRITONSERVER_REQUEST_FLAG_SEQUENCE_START 1, END 2: flags()).
   */
  sequence?: { key: string; flags: number };
  /** The request's trace id while it is traced (request.trace(): its BLS requests are traced as its children). */
  trace?: number;
  /** Its trace context in mode opentelemetry (request.trace().get_context()): Triton's JSON with the model span's traceparent. */
  traceContext?: string;
}

/** One request's answer from model.py: outputs copied out of shared memory, or its error. */
export type ExecuteAnswer = { outputs: InferTensor[]; parameters?: ParameterMap } | { error: string; code?: number } | Rescheduled;

/**
 * model.py released the request with TRITONSERVER_REQUEST_RELEASE_RESCHEDULE: it runs again in a
 * later execute() (an iterative sequence's next step). A decoupled request's answer is this or
 * nothing: its responses come on their own.
 */
export interface Rescheduled { rescheduled: true }

interface Pending {
  resolve(answers: ExecuteAnswer[]): void;
  reject(err: Error): void;
  /** The requests' keys, in order. */
  keys: Array<number | undefined>;
}

const LOG_LEVELS = ['info', 'warn', 'error', 'verbose'] as const;
/** How long a closed control pipe waits for the process's exit before gebe ends the process. */
const PIPE_CLOSE_GRACE_MS = 2000;

export class StubProcess {
  private readonly arena: SharedArena;
  private readonly child: ChildProcess;
  private readonly channel: ControlChannel;
  private readonly stderr: { tail(): string[] };
  /** model.py's MetricFamily and Metric objects (pb_utils custom metrics). */
  private readonly metrics = new CustomMetricHandles();
  private pending?: Pending;
  private startup?: { resolve(): void; reject(err: Error): void };
  private completed?: (config: unknown) => void;
  private finalizing?: () => void;
  private exitReason?: string;
  private readonly exited: Promise<void>;

  private constructor(private readonly o: StubOptions) {
    this.arena = SharedArena.create(o.shmCap);
    this.child = spawn(o.interpreter.command, [STUB_SCRIPT, this.arena.path], {
      stdio: ['ignore', 'pipe', 'pipe', 'pipe', 'pipe'],
      env: { ...process.env, ...o.interpreter.env, PYTHONUNBUFFERED: '1', PYTHONDONTWRITEBYTECODE: '1' },
    });
    const fields = { model: o.modelName, instance: o.instanceName };
    new LineLog(this.child.stdout!, (line) => o.log.info(line, fields));
    this.stderr = new LineLog(this.child.stderr!, (line) => o.log.warn(line, fields));
    this.channel = new ControlChannel(this.child.stdio[3] as Writable, this.child.stdio[4] as Readable, (m) => this.onMessage(m), (reason) => {
      this.exitReason ??= `it broke the control protocol (${reason})`;
      this.kill();
    }, () => {
      // Usually the process has ended and its exit is on the way; one that still runs closed the
      // pipe itself and can answer nothing more.
      setTimeout(() => {
        if (this.exitReason !== undefined) return;
        this.exitReason = 'it closed its control pipe (file descriptor 4)';
        this.kill();
      }, PIPE_CLOSE_GRACE_MS).unref();
    });
    this.exited = new Promise((resolve) => {
      this.child.once('error', (err) => {
        this.exitReason ??= `${o.interpreter.command} could not be started (${err.message})`;
        this.onGone();
        resolve();
      });
      this.child.once('close', (code, signal) => {
        this.exitReason ??= signal ? `it was killed by ${signal}` : `it exited with code ${code}`;
        this.onGone();
        resolve();
      });
    });
  }

  /** Starts the process and runs model.py's initialize(); rejects with the reason it failed. */
  static async start(o: StubOptions): Promise<StubProcess> {
    const stub = new StubProcess(o);
    await new Promise<void>((resolve, reject) => {
      stub.startup = { resolve, reject };
      stub.channel.send({
        op: 'init', args: o.args, model_file: o.modelFile, shm_cap: o.shmCap, shm_size: stub.arena.size,
        decoupled: Boolean(o.decoupled), iterative: Boolean(o.iterative), control_cap: MAX_CONTROL_MESSAGE_BYTES,
      });
    });
    // Both processes hold the file now: its name can go, so nothing is left behind in /dev/shm.
    stub.arena.unlink();
    return stub;
  }

  /**
   * Runs model.py's auto_complete_config(config) in a process of its own (no initialize(), no
   * instance), as Triton's auto-complete pass does; resolves to the config it returned, as JSON
   * from model.py (unchecked), and rejects with what failed.
   */
  static async autoComplete(o: StubOptions): Promise<unknown> {
    const stub = new StubProcess(o);
    try {
      return await new Promise<unknown>((resolve, reject) => {
        stub.startup = { resolve: () => reject(new Error('the Python stub started an instance instead of completing the config')), reject };
        stub.completed = resolve;
        stub.channel.send({
          op: 'init', auto_complete: true, args: o.args, model_file: o.modelFile, shm_cap: o.shmCap, shm_size: stub.arena.size, control_cap: MAX_CONTROL_MESSAGE_BYTES,
        });
      });
    } finally {
      stub.kill();
      await stub.exited;
    }
  }

  get alive(): boolean {
    return this.exitReason === undefined;
  }

  /** Runs one execute(requests) call; rejects when model.py's execute raised or the process died. */
  execute(requests: ExecuteRequest[]): Promise<ExecuteAnswer[]> {
    if (!this.alive) return Promise.reject(new Error(this.goneMessage()));
    if (this.pending) return Promise.reject(new Error('internal error: an instance got a second execute() while one is running'));
    let offset = 0;
    const described = requests.map((r) => ({
      id: r.id ?? '',
      key: r.key,
      outputs: r.outputs,
      parameters: r.parameters ?? {},
      correlation: r.sequence?.key,
      timeout: r.timeoutUs ?? 0,
      flags: r.sequence?.flags ?? 0,
      ...(r.trace !== undefined ? { trace: r.trace } : {}),
      ...(r.traceContext !== undefined ? { trace_context: r.traceContext } : {}),
      inputs: r.inputs.map((t) => {
        offset = align(offset);
        this.arena.reserve(offset, t.data.byteLength, `input '${t.name}'`);
        this.arena.write(offset, t.data);
        const desc = { name: t.name, datatype: t.datatype, shape: t.shape, offset, size: t.data.byteLength };
        offset += t.data.byteLength;
        return desc;
      }),
    }));
    return new Promise<ExecuteAnswer[]>((resolve, reject) => {
      this.pending = { resolve, reject, keys: requests.map((r) => r.key) };
      this.channel.send({ op: 'execute', model_name: this.o.modelName, requests: described, shm_size: this.arena.size, free_offset: align(offset) });
    });
  }

  /** Stops (true) or resumes taking the process's messages (ControlChannel.hold). */
  holdOutput(on: boolean): void {
    this.channel.hold(on);
  }

  /** Tells model.py that the client of an open decoupled request went away (its sender's is_cancelled()). */
  cancel(key: number): void {
    if (this.alive) this.channel.send({ op: 'cancel', key });
  }

  /** Runs finalize() and waits up to `graceMs` for the process to end; then kills it. */
  async finalize(graceMs: number): Promise<void> {
    if (this.alive) {
      const done = new Promise<void>((resolve) => (this.finalizing = resolve));
      this.channel.send({ op: 'finalize' });
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), graceMs)));
      const outcome = await Promise.race([done.then(() => this.exited), this.exited, late]);
      clearTimeout(timer);
      if (outcome === 'late') {
        this.o.log.warn('Python model instance did not end within the unload grace period; killing it', {
          model: this.o.modelName, instance: this.o.instanceName, grace_ms: graceMs,
        });
      }
    }
    this.kill();
    await this.exited;
  }

  /** Ends the process at once (SIGKILL). */
  kill(): void {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGKILL');
  }

  private onMessage(m: ControlMessage): void {
    switch (m.op) {
      case 'ready':
        this.startup?.resolve();
        this.startup = undefined;
        return;
      case 'init_error':
      case 'fatal':
        this.exitReason = 'it failed to load';
        this.startup?.reject(this.loadError(m.op, String(m.message)));
        this.startup = undefined;
        this.kill();
        return;
      case 'auto_completed':
        if (!this.completed) {
          this.exitReason = 'it sent a completed config it was not asked for';
          this.kill();
          return;
        }
        this.startup = undefined;
        this.completed(m.config);
        this.completed = undefined;
        return;
      case 'result':
        return this.onResult(m);
      case 'response':
        if (!this.o.decoupled || typeof m.key !== 'number') {
          this.exitReason = 'it sent a decoupled response for a model that is not decoupled, or without its request\'s key';
          this.kill();
          return;
        }
        this.o.onResponse?.(m.key, m.outputs === undefined && m.error === undefined ? undefined : inlineAnswer(m), m.final === true);
        return;
      case 'bls':
      case 'bls_fetch':
        void this.o.bls(m, this.arena, (reply) => {
          if (this.alive) this.channel.send(reply);
        });
        return;
      case 'model_control':
        void this.o.modelControl(m, (reply) => {
          if (this.alive) this.channel.send(reply);
        });
        return;
      case 'metric':
        try {
          this.metrics.handle(m, (reply) => {
            if (this.alive) this.channel.send(reply as ControlMessage);
          });
        } catch (err) {
          if (!(err instanceof ProtocolError)) throw err;
          this.exitReason = `it broke the control protocol (${err.message})`;
          this.kill();
        }
        return;
      case 'log': {
        const level = LOG_LEVELS[Number(m.level)] ?? 'info';
        this.o.log[level](String(m.message).slice(0, 65536), { model: this.o.modelName, instance: this.o.instanceName });
        return;
      }
      case 'finalized':
        if (typeof m.error === 'string') this.o.log.warn(`finalize() of model.py failed: ${m.error}`, { model: this.o.modelName, instance: this.o.instanceName });
        this.finalizing?.();
        return;
      default:
        this.exitReason = `it sent an unknown control message "${m.op.slice(0, 40)}"`;
        this.kill();
    }
  }

  private onResult(m: ControlMessage): void {
    const pending = this.pending;
    this.pending = undefined;
    if (!pending) return;
    try {
      this.settle(pending, m);
    } finally {
      this.arena.discardAbove(ARENA_KEEP_BYTES);
    }
  }

  private settle(pending: Pending, m: ControlMessage): void {
    try {
      this.arena.ensure(Number(m.shm_size));
    } catch (err) {
      pending.reject(err as Error);
      return;
    }
    if (typeof m.error === 'string') {
      pending.reject(new Error(m.error));
      return;
    }
    if (this.o.decoupled) {
      // Its responses came (or come) on their own; the result names the requests model.py rescheduled.
      const rescheduled = new Set(Array.isArray(m.rescheduled) ? (m.rescheduled as unknown[]) : []);
      pending.resolve(pending.keys.map((key) => (rescheduled.has(key) ? { rescheduled: true } : { outputs: [] })));
      return;
    }
    const responses = Array.isArray(m.responses) ? (m.responses as unknown[]) : [];
    if (responses.length !== pending.keys.length) {
      pending.reject(new Error(`the Python stub answered ${responses.length} responses for ${pending.keys.length} requests`));
      return;
    }
    pending.resolve(responses.map((r) => this.copyAnswer(r)));
  }

  /** Copies one answer's tensors out of the arena (which the next execute overwrites). */
  private copyAnswer(raw: unknown): ExecuteAnswer {
    const r = (raw ?? {}) as { error?: unknown; outputs?: unknown; rescheduled?: unknown };
    if (r.rescheduled === true) return { rescheduled: true };
    if (typeof r.error === 'string') return errorAnswer(r.error, (r as { code?: unknown }).code);
    if (!Array.isArray(r.outputs)) return { error: 'the Python stub sent a response without outputs' };
    const outputs: InferTensor[] = [];
    for (const d of r.outputs as Array<Record<string, unknown>>) {
      const view = this.arena.view(d?.offset, d?.size);
      if (!view || typeof d.name !== 'string' || typeof d.datatype !== 'string' || !Array.isArray(d.shape)) {
        return { error: `the Python stub described output '${String(d?.name).slice(0, 100)}' outside its shared memory` };
      }
      outputs.push({ name: d.name, datatype: d.datatype as InferTensor['datatype'], shape: d.shape as number[], data: view.slice() });
    }
    return withResponseParameters(outputs, (r as { parameters?: unknown }).parameters);
  }

  private loadError(op: string, message: string): GebeError {
    if (op === 'fatal') return new GebeError(`model '${this.o.modelName}': ${message}`, { hint: `the interpreter is ${this.o.interpreter.command} (${this.o.interpreter.origin})` });
    return new GebeError(`model '${this.o.modelName}': model.py failed to load: ${message}`, { hint: 'fix model.py (its initialize() and module code run at load)' });
  }

  private goneMessage(): string {
    const tail = this.stderr.tail().slice(-3).join(' | ');
    return `the Python process of instance '${this.o.instanceName}' of model '${this.o.modelName}' ended: ${this.exitReason ?? 'unknown'}${tail ? `; its last stderr lines: ${tail}` : ''}`;
  }

  private onGone(): void {
    this.exitReason ??= 'it ended';
    this.arena.close();
    this.metrics.releaseAll();
    const message = this.goneMessage();
    this.startup?.reject(new GebeError(`model '${this.o.modelName}' failed to load: ${message}`, {
      hint: `the interpreter is ${this.o.interpreter.command} (${this.o.interpreter.origin})`,
    }));
    this.startup = undefined;
    this.pending?.reject(new Error(`${message} while running execute(); a new process is started for the next request`));
    this.pending = undefined;
    this.finalizing?.();
    this.o.onExit?.(message);
  }
}

/** A decoupled response's answer: its outputs travel inside the message (inline-tensors.ts). */
function inlineAnswer(m: ControlMessage): ExecuteAnswer {
  if (typeof m.error === 'string') return errorAnswer(m.error, m.code);
  const outputs = fromInline(m.outputs);
  return Array.isArray(outputs) ? withResponseParameters(outputs, m.parameters) : outputs;
}

/** A response model.py answered with an error (TritonError's message, bounded, and its code). */
function errorAnswer(message: string, code: unknown): ExecuteAnswer {
  return { error: message.slice(0, 65536), code: typeof code === 'number' ? code : undefined };
}

/** An answer's outputs with the parameters model.py gave its response (JSON text), or the error they are. */
function withResponseParameters(outputs: InferTensor[], text: unknown): ExecuteAnswer {
  if (text === undefined) return { outputs };
  try {
    const parameters = parseParameters(text, 'the response\'s parameters');
    return parameters ? { outputs, parameters } : { outputs };
  } catch (err) {
    return { error: (err as Error).message };
  }
}
