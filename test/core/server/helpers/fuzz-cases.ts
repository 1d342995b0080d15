/**
 * Malformed KServe v2 requests, generated from a valid one with a seeded random source: broken
 * JSON, wrong shapes, datatypes and element counts, lying Inference-Header-Content-Length,
 * truncated binary data, unknown models, huge declared shapes, wrong field types.
 */
import { seededRandom } from '../../../helpers/onnx-builder.js';

export interface FuzzInput {
  name: string;
  datatype: string;
  shape: number[];
  bytes: Uint8Array;
}

export interface HttpFuzzCase {
  kind: string;
  path: string;
  headers: Record<string, string>;
  body: Buffer;
}

const DATATYPES = ['BOOL', 'UINT8', 'INT8', 'INT32', 'INT64', 'FP16', 'BF16', 'FP32', 'FP64', 'BYTES', 'FLOAT', '', 'fp32'];

export function httpFuzzCases(model: string, inputs: FuzzInput[], count: number, seed = 1): HttpFuzzCase[] {
  const rand = seededRandom(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(rand() * items.length)]!;
  const int = (n: number) => Math.floor(rand() * n);
  const path = `/v2/models/${model}/infer`;
  const binary = (header: unknown, datas: Uint8Array[], headerLength?: number): HttpFuzzCase => {
    const json = Buffer.from(JSON.stringify(header));
    const body = Buffer.concat([json, ...datas.map((d) => Buffer.from(d))]);
    return { kind: '', path, headers: { 'Inference-Header-Content-Length': String(headerLength ?? json.byteLength) }, body };
  };
  const validHeader = () => ({
    inputs: inputs.map((i) => ({ name: i.name, datatype: i.datatype, shape: [...i.shape], parameters: { binary_data_size: i.bytes.byteLength } as Record<string, unknown> })),
  });
  const mutators: Array<[string, () => HttpFuzzCase]> = [
    ['truncated JSON', () => {
      const text = JSON.stringify({ inputs: inputs.map((i) => ({ name: i.name, datatype: i.datatype, shape: i.shape, data: [1, 2, 3] })) });
      return { kind: '', path, headers: {}, body: Buffer.from(text.slice(0, int(text.length))) };
    }],
    ['random bytes as JSON', () => ({ kind: '', path, headers: {}, body: Buffer.from(Array.from({ length: int(200) }, () => int(256))) })],
    ['JSON of the wrong shape', () => ({ kind: '', path, headers: {}, body: Buffer.from(JSON.stringify(pick([null, 1, 'x', [], { inputs: {} }, { inputs: [1] }, { inputs: [{}] }, { inputs: [{ name: 1 }] }, { id: 5, inputs: [] }, { inputs: [{ name: inputs[0]!.name, datatype: inputs[0]!.datatype, shape: 'x', data: [] }] }]))) })],
    ['wrong datatype', () => {
      const h = validHeader();
      h.inputs[int(h.inputs.length)]!.datatype = pick(DATATYPES.filter((d) => d !== inputs[0]!.datatype));
      return binary(h, inputs.map((i) => i.bytes));
    }],
    ['wrong shape', () => {
      const h = validHeader();
      const t = h.inputs[int(h.inputs.length)]!;
      const mutation = int(4);
      if (mutation === 0) t.shape = t.shape.slice(1);
      else if (mutation === 1) t.shape = [...t.shape, 1];
      else if (mutation === 2) {
        const at = int(t.shape.length);
        t.shape[at] = t.shape[at]! + 1 + int(5);
      }
      else t.shape[int(t.shape.length)] = pick([-1, -5, 1.5, 2 ** 53, 1e300]);
      return binary(h, inputs.map((i) => i.bytes));
    }],
    ['huge declared shape', () => {
      const h = validHeader();
      h.inputs[0]!.shape = [pick([65536, 1 << 20, 2 ** 31]), pick([65536, 1 << 20]), 28, 28];
      return binary(h, inputs.map((i) => i.bytes));
    }],
    ['wrong element count in JSON data', () => ({
      kind: '', path, headers: {},
      body: Buffer.from(JSON.stringify({ inputs: inputs.map((i) => ({ name: i.name, datatype: i.datatype, shape: i.shape, data: Array.from({ length: int(50) }, () => rand()) })) })),
    })],
    ['wrong element types in JSON data', () => ({
      kind: '', path, headers: {},
      body: Buffer.from(JSON.stringify({ inputs: inputs.map((i) => ({ name: i.name, datatype: i.datatype, shape: [1], data: [pick(['x', null, {}, true, [[]], 1e400])] })) })),
    })],
    ['lying Inference-Header-Content-Length', () => {
      const c = binary(validHeader(), inputs.map((i) => i.bytes));
      c.headers['Inference-Header-Content-Length'] = pick([String(c.body.byteLength + 1 + int(1000)), String(int(20)), '-1', 'abc', '1e3', '']);
      return c;
    }],
    ['truncated binary data', () => {
      const c = binary(validHeader(), inputs.map((i) => i.bytes));
      const headerLength = Number(c.headers['Inference-Header-Content-Length']);
      c.body = c.body.subarray(0, headerLength + int(c.body.byteLength - headerLength));
      return c;
    }],
    ['extra binary data', () => binary(validHeader(), [...inputs.map((i) => i.bytes), Buffer.alloc(1 + int(64))])],
    ['wrong binary_data_size', () => {
      const h = validHeader();
      h.inputs[int(h.inputs.length)]!.parameters.binary_data_size = pick([0, 1, 3, -4, 'big', 1e12, null]);
      return binary(h, inputs.map((i) => i.bytes));
    }],
    ['unknown model', () => ({ ...binary(validHeader(), inputs.map((i) => i.bytes)), path: `/v2/models/${pick(['nope', '..', '%2e%2e', 'a'.repeat(300), '%ZZ'])}/infer` })],
    ['unknown version', () => ({ ...binary(validHeader(), inputs.map((i) => i.bytes)), path: `/v2/models/${model}/versions/${pick(['99', 'x', '-1', '1.0'])}/infer` })],
    ['unknown input name', () => {
      const h = validHeader();
      h.inputs[0]!.name = pick(['', 'nope', inputs[0]!.name + 'x']);
      return binary(h, inputs.map((i) => i.bytes));
    }],
    ['bad parameters', () => {
      const h = { ...validHeader(), parameters: pick([{ priority: -1 }, { priority: 'high' }, { timeout: 1.5 }, { binary_data_output: 'yes' }, []]) };
      return binary(h, inputs.map((i) => i.bytes));
    }],
    ['bad requested outputs', () => {
      const h = { ...validHeader(), outputs: pick([{}, [1], [{ name: 'nope' }], [{ name: 'x', parameters: { binary_data: 'y' } }], [{ name: 'x', parameters: { classification: 3 } }]]) };
      return binary(h, inputs.map((i) => i.bytes));
    }],
  ];
  const cases: HttpFuzzCase[] = [];
  for (let n = 0; n < count; n++) {
    const [kind, make] = mutators[n % mutators.length]!;
    cases.push({ ...make(), kind });
  }
  return cases;
}
