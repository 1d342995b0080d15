/**
 * Triton's generate extension (POST .../generate and .../generate_stream), the flat JSON that LLM
 * clients send: each field named after a model input is that tensor (a string, number or boolean
 * is one element; an array, nested or flat, its elements), `parameters` holds request parameters
 * (priority, timeout, sequence_*, as infer's; the others, and the request's other scalar fields, go
 * to the model). A response is a flat object: model_name,
 * model_version, and each output by name, one element as a scalar, more as a flat array.
 */
import type { InferRequest, InferResponse, TensorMetadata } from '../../executor/types.js';
import { ProtocolError } from '../protocol-error.js';
import { addModelParameter, applyRequestParameters, optionalObject, parseJsonObject } from './http-infer-request.js';
import { bytesToJsonText, jsonDataToBytes, MAX_DATA_DEPTH, nestedTooDeep } from './json-tensor.js';

/** A generate request's tensors, shaped from the model's inputs (`batched`: their first dim is the batch). */
export function decodeGenerateRequest(body: Buffer, inputs: readonly TensorMetadata[], batched: boolean): InferRequest {
  const json = parseJsonObject(body.toString('utf8'));
  const request: InferRequest = { inputs: [] };
  const params = optionalObject(json.parameters, 'parameters');
  if (params) applyRequestParameters(params, request);
  // Other scalar fields are request parameters too (Triton: "passed either as parameters or tensors").
  const names = new Set(inputs.map((t) => t.name));
  for (const [key, value] of Object.entries(json)) if (key !== 'parameters' && !names.has(key)) addModelParameter(request, key, value);
  for (const input of inputs) {
    const value = json[input.name];
    if (value === undefined) continue;  // a required input left out: the request check names it
    const data = Array.isArray(value) ? value : [value];
    const nested = rectangularShape(data, input.name);
    const count = nested.reduce((a, b) => a * b, 1);
    const shape = shapeFor(input, batched, nested, count);
    request.inputs.push({ name: input.name, datatype: input.datatype, shape, data: jsonDataToBytes(data, input.datatype, count, input.name) });
  }
  return request;
}

/** The dims of nested arrays that are rectangular (every row as long), counting the leaves; flat otherwise. */
function rectangularShape(data: unknown[], field: string): number[] {
  const dims: number[] = [];
  let level: unknown = data;
  while (Array.isArray(level) && dims.length <= MAX_DATA_DEPTH) {
    dims.push(level.length);
    level = level[0];
  }
  const count = dims.reduce((a, b) => a * b, 1);
  const elements = leaves(data, 0, field);
  return elements === count ? dims : [elements];
}

function leaves(value: unknown, depth: number, field: string): number {
  if (!Array.isArray(value)) return 1;
  if (depth > MAX_DATA_DEPTH) throw nestedTooDeep(`generate request field '${field}'`);
  let n = 0;
  for (const v of value) n += leaves(v, depth + 1, field);
  return n;
}

/**
 * The shape an input takes: the model's dims (a batch of 1 where it batches) when the value's
 * nesting matches them; otherwise the value's elements fill the variable dims, all but the last 1.
 */
function shapeFor(input: TensorMetadata, batched: boolean, nested: number[], count: number): number[] {
  const dims = batched ? input.shape.slice(1) : [...input.shape];
  const fits = (shape: number[]) => shape.length === dims.length && shape.every((d, i) => dims[i] === -1 || dims[i] === d);
  const lead = batched ? [1] : [];
  if (fits(nested)) return [...lead, ...nested];
  const fixed = dims.reduce((a, d) => (d === -1 ? a : a * d), 1);
  const last = dims.lastIndexOf(-1);
  const shape = dims.map((d, i) => (d !== -1 ? d : i === last ? count / fixed : 1));
  if (!Number.isInteger(count / fixed) || (last < 0 && fixed !== count)) {
    throw ProtocolError.badRequest(`generate request field '${input.name}' has ${count} elements, which do not fill the input's shape [${input.shape.join(',')}]`);
  }
  return [...lead, ...shape];
}

/** One generate response object, as JSON text. */
export function generateResponseText(response: InferResponse): string {
  let text = `{"model_name":${JSON.stringify(response.modelName)},"model_version":${JSON.stringify(response.modelVersion)}`;
  for (const o of response.outputs) {
    const values = bytesToJsonText(o.datatype, o.data, o.name);
    const one = o.shape.reduce((a, b) => a * b, 1) === 1;
    text += `,${JSON.stringify(o.name)}:${one ? values.slice(1, -1) : values}`;
  }
  return `${text}}`;
}

/** The error object a generate request answers, as JSON text. */
export function generateErrorText(message: string): string {
  return JSON.stringify({ error: message });
}
