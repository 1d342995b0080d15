/**
 * A typed facade over the native cpu engine's test surface (CpuSession: run a graph directly, for
 * tests and benchmarks; product code runs models through the executor), in the test build of the
 * addon (native/test/bindings/cpu_session_binding.cc).
 * Every argument is validated here before it reaches the addon, with messages of the form
 * `Expected X for Y but received Z`; engine errors come back as GebeError naming the node or tensor.
 */
import './test-addon.js';
import { GebeError } from '../../src/errors.js';
import { loadNativeAddon } from '../../src/core/executor/native.js';
import type { CpuModelInfo } from '../../src/core/executor/onnx-inspect.js';

export { inspectOnnxModel, type CpuModelInfo, type CpuTensorDesc } from '../../src/core/executor/onnx-inspect.js';

export type CpuDatatype = 'FP32' | 'INT64' | 'INT32' | 'BOOL' | 'FP16' | 'BF16' | 'FP64' | 'UINT8' | 'INT8' | 'UINT16'
  | 'INT16' | 'UINT32' | 'UINT64';

/** FP16 and BF16 travel as their raw 16-bit patterns in a Uint16Array. */
export type CpuTypedArray = Float32Array | BigInt64Array | Int32Array | Uint8Array | Float64Array | Int8Array | Uint16Array
  | Int16Array | Uint32Array | BigUint64Array;

export interface CpuSessionInfo extends CpuModelInfo {
  threads: number;
  /** Nodes left after optimisation (folding, fusion, dead-node removal). */
  steps: number;
  /** Operator histogram of the optimised graph (fused nodes disappear: Conv absorbs Relu and BatchNormalization). */
  optimizedOperators: Record<string, number>;
}

export interface CpuSessionOptions {
  /** Intra-op threads; 0 = one per core. */
  intraOpThreads?: number;
  /** Largest single tensor the session may allocate. */
  maxTensorBytes?: number;
  /** Engine parameters (string values), e.g. { allow_non_finite_inputs: 'true' }. */
  parameters?: Record<string, string>;
}

export interface CpuTensor {
  name: string;
  datatype: CpuDatatype;
  dims: number[];
  data: CpuTypedArray;
}

export interface CpuCompileReport {
  /** Time spent planning this signature (0 when the plan was cached). */
  compileMs: number;
  /** Intermediate memory planned for the signature, with buffers reused across value lifetimes. */
  arenaBytes: number;
  cached: boolean;
  /** What the plan does with each optimised node: run it, run it with runtime shapes, fold it, or alias it (views). */
  steps: { run: number; dynamic: number; folded: number; aliased: number };
}

type NativeInput = { name: string; datatype: string; dims: number[]; data: CpuTypedArray };
type NativeOutput = { name: string; datatype: string; dims: number[]; data: ArrayBuffer };

interface NativeCpuSession {
  info(): CpuSessionInfo;
  compile(shapes: Array<{ name: string; dims: number[] }>): CpuCompileReport;
  run(inputs: NativeInput[]): Promise<NativeOutput[]>;
  runSync(inputs: NativeInput[]): NativeOutput[];
  close(): void;
}

interface CpuAddon {
  CpuSession: new (path: string, options: CpuSessionOptions) => NativeCpuSession;
  cpuSupportedOperators(): string[];
  cpuGemmIsa(): string;
  cpuQgemmIsa(): string;
  cpuSupportedIsas(): string[];
}

const arrayTypes: Record<CpuDatatype, { ctor: new (buffer: ArrayBuffer) => CpuTypedArray; name: string }> = {
  FP32: { ctor: Float32Array, name: 'Float32Array' },
  INT64: { ctor: BigInt64Array, name: 'BigInt64Array' },
  INT32: { ctor: Int32Array, name: 'Int32Array' },
  BOOL: { ctor: Uint8Array, name: 'Uint8Array' },
  FP16: { ctor: Uint16Array, name: 'Uint16Array' },
  BF16: { ctor: Uint16Array, name: 'Uint16Array' },
  FP64: { ctor: Float64Array, name: 'Float64Array' },
  UINT8: { ctor: Uint8Array, name: 'Uint8Array' },
  INT8: { ctor: Int8Array, name: 'Int8Array' },
  UINT16: { ctor: Uint16Array, name: 'Uint16Array' },
  INT16: { ctor: Int16Array, name: 'Int16Array' },
  UINT32: { ctor: Uint32Array, name: 'Uint32Array' },
  UINT64: { ctor: BigUint64Array, name: 'BigUint64Array' },
};

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return `an array of length ${value.length}`;
  if (ArrayBuffer.isView(value)) return `a ${value.constructor.name} of length ${(value as unknown as { length: number }).length}`;
  if (typeof value === 'object') return 'an object';
  if (typeof value === 'string') return `the string ${JSON.stringify(value)}`;
  return `${typeof value} ${String(value)}`;
}

function expect(condition: boolean, what: string, field: string, value: unknown): asserts condition {
  if (!condition) throw new GebeError(`Expected ${what} for ${field} but received ${describe(value)}`);
}

function isDims(value: unknown): value is number[] {
  return Array.isArray(value) && value.every((d) => Number.isInteger(d) && d >= 0);
}

function cpuAddon(): CpuAddon {
  const addon = loadNativeAddon() as unknown as Partial<CpuAddon>;
  if (typeof addon.CpuSession !== 'function') {
    throw new GebeError('the test build of the native addon has no cpu session binding', { hint: 'rebuild it with `npm run build:native`' });
  }
  return addon as CpuAddon;
}

function engineError(err: unknown, path: string): GebeError {
  const message = err instanceof Error ? err.message : String(err);
  return new GebeError(`${path}: ${message}`, { cause: err });
}

/** Operators the cpu engine implements. */
export function cpuSupportedOperators(): string[] {
  return cpuAddon().cpuSupportedOperators();
}

/** The kernel ISA in use ('avx512', 'avx2', 'neon' or 'portable'; GEBE_CPU_ISA forces one). */
export function cpuGemmIsa(): string {
  return cpuAddon().cpuGemmIsa();
}

/** The integer GEMM's kernels ('avx512vnni', 'avx2' or 'portable'; avx512 without VNNI runs avx2's). */
export function cpuQgemmIsa(): string {
  return cpuAddon().cpuQgemmIsa();
}

/** The kernel ISAs this CPU runs, each a value GEBE_CPU_ISA accepts ('portable', 'avx2', 'avx512'). */
export function cpuSupportedIsas(): string[] {
  return cpuAddon().cpuSupportedIsas();
}

export class CpuSession {
  private readonly native: NativeCpuSession;
  private closed = false;

  private constructor(readonly path: string, native: NativeCpuSession) {
    this.native = native;
  }

  static load(path: string, options: CpuSessionOptions = {}): CpuSession {
    expect(typeof path === 'string' && path.length > 0, 'a model file path', 'path', path);
    expect(typeof options === 'object' && options !== null, 'an options object', 'options', options);
    const { intraOpThreads, maxTensorBytes, parameters } = options;
    expect(intraOpThreads === undefined || (Number.isInteger(intraOpThreads) && intraOpThreads >= 0 && intraOpThreads <= 1024),
      'an integer from 0 to 1024', 'options.intraOpThreads', intraOpThreads);
    expect(maxTensorBytes === undefined || (Number.isSafeInteger(maxTensorBytes) && maxTensorBytes > 0),
      'a positive integer', 'options.maxTensorBytes', maxTensorBytes);
    if (parameters !== undefined) {
      expect(typeof parameters === 'object' && parameters !== null && !Array.isArray(parameters), 'an object of strings', 'options.parameters', parameters);
      for (const [key, value] of Object.entries(parameters)) expect(typeof value === 'string', 'a string', `options.parameters.${key}`, value);
    }
    const { CpuSession: Native } = cpuAddon();
    try {
      return new CpuSession(path, new Native(path, { intraOpThreads, maxTensorBytes, parameters }));
    } catch (err) {
      throw engineError(err, path);
    }
  }

  info(): CpuSessionInfo {
    this.assertOpen();
    return this.native.info();
  }

  /** Plans the given input shapes ahead of the first run (what warmup does). */
  compile(shapes: Record<string, number[]>): CpuCompileReport {
    this.assertOpen();
    expect(typeof shapes === 'object' && shapes !== null && !Array.isArray(shapes), 'an object of input name → dims', 'shapes', shapes);
    const list = Object.entries(shapes).map(([name, dims]) => {
      expect(isDims(dims), 'an array of non-negative integers', `shapes.${name}`, dims);
      return { name, dims };
    });
    try {
      return this.native.compile(list);
    } catch (err) {
      throw engineError(err, this.path);
    }
  }

  /** Runs the model off the JS thread. */
  async run(inputs: CpuTensor[]): Promise<CpuTensor[]> {
    this.checkInputs(inputs);
    let outputs;
    try {
      outputs = await this.native.run(inputs);
    } catch (err) {
      throw engineError(err, this.path);
    }
    return this.toTensors(outputs);
  }

  /**
   * Runs the model on the calling thread, blocking the event loop for the whole run, as
   * onnxruntime-node's `run` does. For benchmarks that compare the engines' compute alike and for
   * scripts with nothing else to do; a server must use `run`.
   */
  runSync(inputs: CpuTensor[]): CpuTensor[] {
    this.checkInputs(inputs);
    let outputs;
    try {
      outputs = this.native.runSync(inputs);
    } catch (err) {
      throw engineError(err, this.path);
    }
    return this.toTensors(outputs);
  }

  private checkInputs(inputs: CpuTensor[]): void {
    this.assertOpen();
    expect(Array.isArray(inputs), 'an array of tensors', 'inputs', inputs);
    inputs.forEach((t, i) => {
      expect(typeof t === 'object' && t !== null, 'a tensor object', `inputs[${i}]`, t);
      expect(typeof t.name === 'string' && t.name.length > 0, 'a tensor name', `inputs[${i}].name`, t.name);
      expect(t.datatype in arrayTypes, `one of ${Object.keys(arrayTypes).join(', ')}`, `inputs[${i}].datatype`, t.datatype);
      expect(isDims(t.dims), 'an array of non-negative integers', `inputs[${i}].dims`, t.dims);
      const { ctor, name } = arrayTypes[t.datatype];
      expect(t.data instanceof ctor, `a ${name}`, `inputs[${i}].data (${t.name})`, t.data);
      const count = t.dims.reduce((a, b) => a * b, 1);
      expect(t.data.length === count, `${count} elements (dims [${t.dims.join(', ')}])`, `inputs[${i}].data (${t.name})`, t.data);
    });
  }

  private toTensors(outputs: NativeOutput[]): CpuTensor[] {
    return outputs.map((o) => {
      const type = arrayTypes[o.datatype as CpuDatatype];
      if (!type) throw new GebeError(`${this.path}: output '${o.name}' has type ${o.datatype}, which the cpu facade cannot return`);
      return { name: o.name, datatype: o.datatype as CpuDatatype, dims: o.dims, data: new type.ctor(o.data) };
    });
  }

  close(): void {
    if (!this.closed) this.native.close();
    this.closed = true;
  }

  private assertOpen(): void {
    if (this.closed) throw new GebeError(`${this.path}: the session is closed`);
  }
}
