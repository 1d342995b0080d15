/**
 * Builds ONNX models in memory and encodes them with protobufjs over the project's onnx.proto.
 * Used to generate fixtures and test models (and by `gebe init --from` tests) without Python.
 */
import protobuf from 'protobufjs';
import { fileURLToPath } from 'node:url';

const protoPath = fileURLToPath(new URL('../../src/core/model/onnx.proto', import.meta.url));
let root: protobuf.Root | undefined;

export function onnxRoot(): protobuf.Root {
  root ??= protobuf.loadSync(protoPath);
  return root;
}

/** ONNX TensorProto.DataType numbers by name. */
export const OnnxType = {
  FLOAT: 1, UINT8: 2, INT8: 3, UINT16: 4, INT16: 5, INT32: 6, INT64: 7, STRING: 8, BOOL: 9,
  FLOAT16: 10, DOUBLE: 11, UINT32: 12, UINT64: 13, BFLOAT16: 16,
} as const;
export type OnnxTypeName = keyof typeof OnnxType;

/** A dim is a number, a symbolic name ('batch'), or null for an unknown dim. */
export type Dim = number | string | null;

export type AttributeValue = number | string | number[] | string[] | { tensor: TensorInit } | { float: number } | { floats: number[] }
  | { graph: OnnxGraphBuilder };

export interface TensorInit {
  name?: string;
  type: OnnxTypeName;
  dims: number[];
  /** Raw element values; encoded into raw_data (little-endian). */
  values: ArrayLike<number> | ArrayLike<bigint> | ArrayLike<boolean>;
}

interface NodeSpec {
  op: string;
  inputs: string[];
  outputs: string[];
  name?: string;
  domain?: string;
  attributes?: Record<string, AttributeValue>;
}

function encodeRaw(type: OnnxTypeName, values: TensorInit['values']): Uint8Array {
  const n = values.length;
  const arr = Array.from(values as ArrayLike<number | bigint | boolean>);
  switch (type) {
    case 'FLOAT': return new Uint8Array(Float32Array.from(arr as number[]).buffer);
    case 'DOUBLE': return new Uint8Array(Float64Array.from(arr as number[]).buffer);
    case 'INT32': return new Uint8Array(Int32Array.from(arr as number[]).buffer);
    case 'INT64': return new Uint8Array(BigInt64Array.from(arr.map((v) => BigInt(v as number))).buffer);
    case 'UINT64': return new Uint8Array(BigUint64Array.from(arr.map((v) => BigInt(v as number))).buffer);
    case 'UINT32': return new Uint8Array(Uint32Array.from(arr as number[]).buffer);
    case 'INT16': return new Uint8Array(Int16Array.from(arr as number[]).buffer);
    case 'UINT16': case 'FLOAT16': case 'BFLOAT16': return new Uint8Array(Uint16Array.from(arr as number[]).buffer);
    case 'INT8': return new Uint8Array(Int8Array.from(arr as number[]).buffer);
    case 'UINT8': return Uint8Array.from(arr as number[]);
    case 'BOOL': return Uint8Array.from(arr.map((v) => (v ? 1 : 0)));
    case 'STRING': throw new Error(`STRING tensors are not supported by the builder (tensor of ${n} elements)`);
  }
}

function tensorProto(t: TensorInit): Record<string, unknown> {
  return { name: t.name ?? '', dataType: OnnxType[t.type], dims: t.dims, rawData: encodeRaw(t.type, t.values) };
}

function attributeProto(name: string, value: AttributeValue): Record<string, unknown> {
  const A = { FLOAT: 1, INT: 2, STRING: 3, TENSOR: 4, GRAPH: 5, FLOATS: 6, INTS: 7, STRINGS: 8 };
  if (typeof value === 'number') {
    return Number.isInteger(value) ? { name, type: A.INT, i: value } : { name, type: A.FLOAT, f: value };
  }
  if (typeof value === 'string') return { name, type: A.STRING, s: new TextEncoder().encode(value) };
  if (Array.isArray(value)) {
    if (value.length > 0 && typeof value[0] === 'string') {
      return { name, type: A.STRINGS, strings: (value as string[]).map((s) => new TextEncoder().encode(s)) };
    }
    const nums = value as number[];
    return nums.every(Number.isInteger) ? { name, type: A.INTS, ints: nums } : { name, type: A.FLOATS, floats: nums };
  }
  if ('tensor' in value) return { name, type: A.TENSOR, t: tensorProto(value.tensor) };
  if ('float' in value) return { name, type: A.FLOAT, f: value.float };
  if ('graph' in value) return { name, type: A.GRAPH, g: value.graph.graphObject() };
  return { name, type: A.FLOATS, floats: value.floats };
}

function valueInfo(name: string, type: OnnxTypeName, dims: Dim[] | undefined): Record<string, unknown> {
  const tensorType: Record<string, unknown> = { elemType: OnnxType[type] };
  if (dims) {
    tensorType.shape = {
      dim: dims.map((d) => (typeof d === 'number' ? { dimValue: d } : typeof d === 'string' ? { dimParam: d } : {})),
    };
  }
  return { name, type: { tensorType } };
}

/** A fluent graph builder: inputs, initializers, nodes, outputs → encoded ModelProto bytes. */
export class OnnxGraphBuilder {
  private readonly inputs: Array<Record<string, unknown>> = [];
  private readonly outputs: Array<Record<string, unknown>> = [];
  private readonly initializers: Array<Record<string, unknown>> = [];
  private readonly nodes: NodeSpec[] = [];
  private counter = 0;

  constructor(private readonly name = 'graph', private readonly opset = 13) {}

  input(name: string, type: OnnxTypeName, dims: Dim[]): this {
    this.inputs.push(valueInfo(name, type, dims));
    return this;
  }

  output(name: string, type: OnnxTypeName, dims?: Dim[]): this {
    this.outputs.push(valueInfo(name, type, dims));
    return this;
  }

  initializer(name: string, type: OnnxTypeName, dims: number[], values: TensorInit['values']): this {
    this.initializers.push(tensorProto({ name, type, dims, values }));
    return this;
  }

  /** Adds a node; returns the builder. Output names default to `<op>_<n>`. */
  node(op: string, inputs: string[], outputs: string[], attributes?: Record<string, AttributeValue>, name?: string): this {
    this.nodes.push({ op, inputs, outputs, attributes, name: name ?? `${op}_${this.counter++}` });
    return this;
  }

  /** A fresh unique tensor name, for chaining generated layers. */
  fresh(prefix: string): string {
    return `${prefix}_${this.counter++}`;
  }

  /** The GraphProto alone: a model's graph, or a control-flow body (`{ graph: builder }` attributes). */
  graphObject(): Record<string, unknown> {
    return {
      name: this.name,
      node: this.nodes.map((n) => ({
        input: n.inputs,
        output: n.outputs,
        name: n.name,
        opType: n.op,
        domain: n.domain ?? '',
        attribute: Object.entries(n.attributes ?? {}).map(([k, v]) => attributeProto(k, v)),
      })),
      initializer: this.initializers,
      input: this.inputs,
      output: this.outputs,
    };
  }

  toModelObject(): Record<string, unknown> {
    return {
      irVersion: 8,
      producerName: 'gebe-onnx-builder',
      opsetImport: [{ domain: '', version: this.opset }],
      graph: this.graphObject(),
    };
  }

  encode(): Uint8Array {
    const ModelProto = onnxRoot().lookupType('onnx.ModelProto');
    return ModelProto.encode(ModelProto.fromObject(this.toModelObject())).finish();
  }
}

/** Deterministic pseudo-random floats in [-scale, scale) (mulberry32), for reproducible fixtures. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function randomValues(count: number, seed: number, scale = 1): Float32Array {
  const rand = seededRandom(seed);
  const out = new Float32Array(count);
  for (let i = 0; i < count; i++) out[i] = (rand() * 2 - 1) * scale;
  return out;
}
