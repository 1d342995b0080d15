/**
 * Triton's trace extension (GET/POST /v2[/models/{m}]/trace/setting, gRPC TraceSetting): the global
 * trace setting and models' own, in Triton's names, and the one check of a client's changes for
 * both protocols (and for --trace-config). Changes are checked as a whole before any is applied, so
 * a refused request changes nothing. The native samplers (native/src/trace/) get each model's
 * effective setting; trace-writer.ts writes what they collect.
 *
 * Decided, where Triton differs or is silent: `trace_file` and `trace_mode` are fixed at start
 * (a client that could name a file could write anywhere the server may; Triton fixes the mode too);
 * `log_frequency` is the server's (gebe writes one trace file, or one series). A model's own
 * setting follows the global one in every field it does not set.
 */
import { ProtocolError, clientText } from '../kserve/protocol-error.js';
import { isTraceLevel, TRACE_LEVELS } from '../kserve/trace-levels.js';
import { nativeTrace, traceJsRequest, type NativeTrace, type NativeTraceValues } from '../executor/trace-addon.js';
import type { InferRequest, TraceLink } from '../executor/types.js';
import { startOtelIds } from '../executor/otel-ids.js';

export interface TraceSetting {
  /** trace_level includes TIMESTAMPS / TENSORS (neither: OFF). */
  timestamps: boolean;
  tensors?: boolean;
  /** trace_rate: every rate-th request is traced. */
  rate: number;
  /** trace_count: how many requests to trace (-1: no limit). */
  count: number;
  /** log_frequency: traces a file holds before the next begins (0: one file, written until the server stops). */
  logFrequency: number;
}

/** Triton's defaults: level OFF, rate 1000, count -1, log_frequency 0. */
export const DEFAULT_TRACE_SETTING: TraceSetting = { timestamps: false, rate: 1000, count: -1, logFrequency: 0 };

/** The settings a request may name (Triton's names); trace_file and trace_mode only as they are. */
export const TRACE_SETTING_NAMES = ['trace_file', 'trace_level', 'trace_rate', 'trace_count', 'log_frequency', 'trace_mode'] as const;
const MAX_RATE = 0xffffffff;
const MAX_COUNT = 2 ** 53 - 1;

type SettingKey = 'timestamps' | 'tensors' | 'rate' | 'count' | 'logFrequency';
const KEYS_OF: Record<string, SettingKey[]> = { trace_level: ['timestamps', 'tensors'], trace_rate: ['rate'], trace_count: ['count'], log_frequency: ['logFrequency'] };

/** A setting's value as a client sends it: a string, a list of strings, or null (clears a model's own value). */
export type TraceSettingValue = string | string[] | null;

/** A setting and its value as refusals quote them. */
function describe(name: string, value: unknown): string {
  return `trace setting '${name}' ${clientText(JSON.stringify(value) ?? String(value))}`;
}

/** A whole number in [min, max], sent as a string (Triton's form) or a number. */
function parseWhole(name: string, value: unknown, min: number, max: number): number {
  const text = typeof value === 'number' ? String(value) : value;
  if (typeof text !== 'string' || !/^-?\d{1,16}$/.test(text) || Number(text) < min || Number(text) > max) {
    throw ProtocolError.badRequest(`${describe(name, value)} must be a whole number from ${min} to ${max}`);
  }
  return Number(text);
}

/** trace_level: OFF, TIMESTAMPS and TENSORS, one or a list (levels add up; OFF alone turns tracing off). */
function parseLevel(value: unknown): { timestamps: boolean; tensors: boolean } {
  const levels = Array.isArray(value) ? value : [value];
  if (levels.length === 0 || levels.length > 8) throw ProtocolError.badRequest(`${describe('trace_level', value)} must name one to eight levels`);
  const out = { timestamps: false, tensors: false };
  for (const level of levels) {
    if (!isTraceLevel(level)) {
      throw ProtocolError.badRequest(`${describe('trace_level', value)}: the levels are ${TRACE_LEVELS.slice(0, -1).join(', ')} and ${TRACE_LEVELS.at(-1)}`);
    }
    if (level === 'TIMESTAMPS') out.timestamps = true;
    else if (level === 'TENSORS') out.tensors = true;
  }
  return out;
}

/** The levels of a setting as Triton answers trace_level. */
function levelNames(s: TraceSetting): string[] {
  const names = [...(s.timestamps ? ['TIMESTAMPS'] : []), ...(s.tensors ? ['TENSORS'] : [])];
  return names.length > 0 ? names : ['OFF'];
}

/** Whether a setting traces at all. */
const traces = (s: Partial<TraceSetting>): boolean => s.timestamps === true || s.tensors === true;

/** Where traces go: Triton's JSON trace files, or an OpenTelemetry receiver (otel-exporter.ts). */
export type TraceMode = 'triton' | 'opentelemetry';
export const TRACE_MODES: readonly TraceMode[] = ['triton', 'opentelemetry'];

/** One setting's new value, checked (trace_file and trace_mode may only name what they are). */
export function parseSetting(name: string, value: unknown, file: string, mode: TraceMode = 'triton'): Partial<TraceSetting> {
  switch (name) {
    case 'trace_file':
      if (value === file) return {};
      throw ProtocolError.badRequest(`trace file location can not be updated through network protocol; start gebe serve with --trace-config triton,file=<path>`);
    case 'trace_mode':
      if (value === mode) return {};
      throw ProtocolError.badRequest(`${describe('trace_mode', value)}: the server traces in mode '${mode}', fixed at start (--trace-config mode=${TRACE_MODES.join('|')})`);
    case 'trace_level': return parseLevel(value);
    // In mode opentelemetry, rate 0 traces only the requests whose client propagates its context (as Triton's).
    case 'trace_rate': return { rate: parseWhole(name, value, mode === 'opentelemetry' ? 0 : 1, MAX_RATE) };
    case 'trace_count': return { count: parseWhole(name, value, -1, MAX_COUNT) };
    case 'log_frequency': return { logFrequency: parseWhole(name, value, 0, MAX_RATE) };
    default:
      throw ProtocolError.badRequest(`unknown trace setting '${clientText(name)}'; the settings are ${TRACE_SETTING_NAMES.join(', ')}`);
  }
}

export class TraceControl {
  /** Runs before a checked change applies (the trace writer takes what finished under the old settings). */
  beforeChange?: () => void;
  private global: TraceSetting;
  /** Models' own values: only the fields they set. */
  private readonly own = new Map<string, Partial<TraceSetting>>();

  /**
   * `file`: the trace file (--trace-config triton,file=...), '' when none was given (in mode triton,
   * tracing cannot be turned on then). `hasModel` says whether a model name is the repository's.
   * `mode`: where traces go, fixed at start.
   */
  constructor(readonly file: string, initial: TraceSetting, private readonly hasModel: (name: string) => void, private readonly native: NativeTrace = nativeTrace(),
    readonly mode: TraceMode = 'triton') {
    this.checkFile(traces(initial));
    this.global = { ...initial };
    this.native.setSetting(null, this.nativeValues(this.global, true));
  }

  /** The server's log_frequency (trace-writer.ts reads it for each file it completes). */
  get logFrequency(): number {
    return this.global.logFrequency;
  }

  /** The settings of `model` (its own over the global ones) or the global ones, as Triton answers them. */
  answer(model?: string): Record<string, string | string[]> {
    if (model !== undefined) this.hasModel(model);
    const s = this.effective(model);
    return {
      trace_file: this.file, trace_level: levelNames(s), trace_rate: String(s.rate),
      trace_count: String(this.native.countLeft(model ?? null)), log_frequency: String(s.logFrequency), trace_mode: this.mode,
    };
  }

  /** Checks `changes` (a setting's name → its new value) as a whole, then applies them to `model`'s own setting or the global one. */
  update(model: string | undefined, changes: Record<string, unknown>): void {
    if (model !== undefined) this.hasModel(model);
    const set: Partial<TraceSetting> = {};
    const cleared: SettingKey[] = [];
    for (const [name, value] of Object.entries(changes)) {
      if (value === null || value === undefined) {
        const keys = KEYS_OF[name];
        if (!keys && !(TRACE_SETTING_NAMES as readonly string[]).includes(name)) parseSetting(name, value, this.file, this.mode);  // the unknown-name refusal
        if (model === undefined) throw ProtocolError.badRequest(`the global trace setting '${clientText(name)}' cannot be cleared; give it a value`);
        cleared.push(...(keys ?? []));
        continue;
      }
      Object.assign(set, parseSetting(name, value, this.file, this.mode));
    }
    if (model !== undefined && set.logFrequency !== undefined) {
      if (set.logFrequency !== this.global.logFrequency) {
        throw ProtocolError.badRequest('log_frequency is the server\'s: gebe writes one trace file (or one series); set it without a model name');
      }
      delete set.logFrequency;  // the server's value, sent again: nothing of the model's own
    }
    const nextGlobal = model === undefined ? { ...this.global, ...set } : this.global;
    const nextOwn = new Map(this.own);
    if (model !== undefined) {
      const mine: Partial<TraceSetting> = { ...nextOwn.get(model), ...set };
      for (const key of cleared) delete mine[key];
      if (Object.keys(mine).length === 0) nextOwn.delete(model);
      else nextOwn.set(model, mine);
    }
    this.checkFile(traces(nextGlobal) || [...nextOwn.values()].some(traces));

    // Checked: apply. A count sent (or a setting made) resets what is left to take.
    this.beforeChange?.();
    const hadOwn = model !== undefined && this.own.has(model);
    this.global = nextGlobal;
    this.own.clear();
    for (const [name, mine] of nextOwn) this.own.set(name, mine);
    if (model === undefined) {
      this.native.setSetting(null, this.nativeValues(this.global, set.count !== undefined));
      // Models' own settings follow the global one where they set nothing themselves.
      for (const [name, mine] of this.own) this.native.setSetting(name, this.nativeValues({ ...this.global, ...mine }, set.count !== undefined && mine.count === undefined));
    } else if (!this.own.has(model)) {
      this.native.setSetting(model, null);
    } else {
      this.native.setSetting(model, this.nativeValues(this.effective(model), !hadOwn || set.count !== undefined || cleared.includes('count')));
    }
  }

  /**
   * A request JS runs itself (a Python model, an ensemble; executor models are sampled natively, on
   * every path), when `model`'s setting samples it: its trace id (an ensemble's steps name it as
   * their parent) and the call that ends the trace once the request settles.
   */
  sampleJsRequest(model: string, version: string, request: InferRequest): { link: TraceLink; end: (done: Promise<unknown>) => void } | undefined {
    const sampled = this.native.sample(model, version, request.traceparent);
    if (!sampled) return undefined;
    const link: TraceLink = { id: sampled.id, timestamps: sampled.timestamps, tensors: sampled.tensors, otel: startOtelIds(sampled.id, undefined, sampled.context || undefined) };
    return { link, end: traceJsRequest(this.native, { ...sampled, parentId: 0 }, model, version, request) };
  }

  /** The server stops: nothing is sampled any more (the native samplers are the process's). */
  close(): void {
    for (const name of this.own.keys()) this.native.setSetting(name, null);
    this.own.clear();
    this.native.setSetting(null, this.nativeValues(DEFAULT_TRACE_SETTING, true));
  }

  private effective(model: string | undefined): TraceSetting {
    return model === undefined ? this.global : { ...this.global, ...this.own.get(model) };
  }

  private nativeValues(s: TraceSetting, withCount: boolean): NativeTraceValues {
    const values = { timestamps: s.timestamps, tensors: s.tensors === true, rate: s.rate };
    return withCount ? { ...values, count: s.count } : values;
  }

  /** In mode triton, traces need the file to go to; in mode opentelemetry, the receiver is always there. */
  private checkFile(tracing: boolean): void {
    if (tracing && this.mode === 'triton' && this.file === '') {
      throw ProtocolError.badRequest('tracing needs a trace file; start gebe serve with --trace-config triton,file=<path>');
    }
  }
}

/** gRPC's TraceSettingRequest values (a list per setting) in the form HTTP sends: [] clears, one value is a string. */
export function traceChangesFromGrpc(settings: Record<string, { value?: string[] }>): Record<string, TraceSettingValue> {
  const out: Record<string, TraceSettingValue> = {};
  for (const [name, entry] of Object.entries(settings)) {
    const values = entry?.value ?? [];
    out[name] = values.length === 0 ? null : name === 'trace_level' ? values : values.length === 1 ? values[0]! : values;
  }
  return out;
}
