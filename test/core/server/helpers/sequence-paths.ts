/**
 * One sequence step of the accumulator example (fixtures/repositories/sequence-example) sent on
 * each path a client can take: HTTP with a JSON body or with the binary extension, gRPC ModelInfer
 * or ModelStreamInfer, or in process. Each path answers with the step's outputs, or with the error
 * it got and its HTTP status / gRPC code / failure name, so tests compare paths value for value.
 */
import type { InferRequest, LoadedModel } from '../../../../src/core/executor/types.js';
import { InferError } from '../../../../src/core/executor/types.js';
import { binaryBody, postBinary, postJson } from './http-client.js';
import { call, streamInfer, type GrpcClient } from './grpc-client.js';

/** One request: the sequence parameters as each wire spells them, and the INPUT rows. */
export interface Step {
  /** `parameters` of the HTTP JSON header (also sent to the in-process path as InferRequest fields). */
  http: Record<string, unknown>;
  /** ModelInferRequest.parameters; undefined when gRPC cannot spell the value (an array, null). */
  grpc: Record<string, object> | undefined;
  /** The InferRequest fields of the in-process path (values of any type: the core judges them). */
  local: Partial<Record<'sequenceId' | 'sequenceStart' | 'sequenceEnd', unknown>>;
  /** INPUT, one row of 4 per 4 values. */
  values: number[];
}

export type Outcome =
  | { outputs: Record<string, number[]> }
  | { error: string; code: number | string };

export interface Path {
  name: string;
  /** How its errors arrive: HTTP status, gRPC status code, in band on a stream, an InferError's failure. */
  wire: 'http' | 'grpc' | 'grpc stream' | 'in process';
  /** Sends the steps of one sequence in order; the stream path writes them all on one stream without waiting. */
  send(steps: Step[]): Promise<Outcome[]>;
}

const MODEL = 'accumulator';
const f32 = (values: number[]) => new Uint8Array(Float32Array.from(values).buffer);
const floatsOf = (bytes: Uint8Array) => Array.from(new Float32Array(Uint8Array.from(bytes).buffer));
const shapeOf = (values: number[]) => [values.length / 4, 4];

/** HTTP with a JSON body, every output as JSON data. */
export function httpJsonPath(name: string, base: () => string): Path {
  const one = async (step: Step): Promise<Outcome> => {
    const res = await postJson(`${base()}/v2/models/${MODEL}/infer`, {
      parameters: step.http,
      inputs: [{ name: 'INPUT', datatype: 'FP32', shape: shapeOf(step.values), data: step.values }],
    });
    if (res.status !== 200) return { error: res.body.error, code: res.status };
    return { outputs: Object.fromEntries(res.body.outputs.map((o: { name: string; data: number[] }) => [o.name, o.data])) };
  };
  return { name, wire: 'http', send: (steps) => sequentially(steps, one) };
}

/** HTTP with the binary extension: INPUT and every output as binary data. */
export function httpBinaryPath(name: string, base: () => string): Path {
  const one = async (step: Step): Promise<Outcome> => {
    const bin = binaryBody(
      { parameters: { ...step.http, binary_data_output: true } },
      [{ name: 'INPUT', datatype: 'FP32', shape: shapeOf(step.values), bytes: f32(step.values) }],
    );
    const res = await postBinary(`${base()}/v2/models/${MODEL}/infer`, bin.body, bin.headerLength);
    if (res.status !== 200) return { error: res.json.error, code: res.status };
    return { outputs: Object.fromEntries([...res.binary].map(([n, bytes]) => [n, floatsOf(bytes)])) };
  };
  return { name, wire: 'http', send: (steps) => sequentially(steps, one) };
}

function grpcRequest(step: Step): object {
  return {
    model_name: MODEL,
    parameters: step.grpc,
    inputs: [{ name: 'INPUT', datatype: 'FP32', shape: shapeOf(step.values) }],
    raw_input_contents: [f32(step.values)],
  };
}

function grpcOutputs(res: { outputs: Array<{ name: string }>; raw_output_contents: Uint8Array[] }): Outcome {
  return { outputs: Object.fromEntries(res.outputs.map((o, i) => [o.name, floatsOf(res.raw_output_contents[i]!)])) };
}

export function grpcUnaryPath(name: string, client: () => GrpcClient): Path {
  const one = async (step: Step): Promise<Outcome> => {
    try {
      return grpcOutputs(await call(client(), 'ModelInfer', grpcRequest(step)));
    } catch (err) {
      const e = err as { code: number; details: string };
      return { error: e.details, code: e.code };
    }
  };
  return { name, wire: 'grpc', send: (steps) => sequentially(steps, one) };
}

/** Every step of the sequence on one ModelStreamInfer stream, pipelined; errors come in band. */
export function grpcStreamPath(name: string, client: () => GrpcClient): Path {
  return {
    name,
    wire: 'grpc stream',
    send: async (steps) => {
      const responses = await streamInfer(client(), steps.map((s, k) => ({ ...grpcRequest(s), id: String(k) })));
      const byId = new Map(responses.map((r) => [r.infer_response.id as string, r]));
      return steps.map((_, k) => {
        const r = byId.get(String(k))!;
        return r.error_message ? { error: r.error_message as string, code: 'in band' } : grpcOutputs(r.infer_response);
      });
    },
  };
}

export function inProcessPath(name: string, model: () => LoadedModel): Path {
  const one = async (step: Step): Promise<Outcome> => {
    const request = { inputs: [{ name: 'INPUT', datatype: 'FP32', shape: shapeOf(step.values), data: f32(step.values) }], ...step.local } as InferRequest;
    try {
      const r = await model().infer(request);
      return { outputs: Object.fromEntries(r.outputs.map((o) => [o.name, floatsOf(o.data)])) };
    } catch (err) {
      if (!(err instanceof InferError)) throw err;
      return { error: err.message, code: err.failure };
    }
  };
  return { name, wire: 'in process', send: (steps) => sequentially(steps, one) };
}

async function sequentially(steps: Step[], one: (step: Step) => Promise<Outcome>): Promise<Outcome[]> {
  const out: Outcome[] = [];
  for (const step of steps) out.push(await one(step));
  return out;
}
