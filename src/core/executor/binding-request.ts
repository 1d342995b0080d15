/**
 * The in-process front end's decoding: an InferRequest as the executor binding's arrays. Nothing
 * is checked here; the native core's Normalize checks every request, from every front end, in
 * one wording (native/src/executor/normalize.cc).
 */
import type { InferRequest } from './types.js';

export interface BindingRequest {
  names: string[];
  datatypes: string[];
  shapes: number[][];
  datas: Uint8Array[];
  outputs: string[] | null;
}

export function toBindingRequest(request: InferRequest): BindingRequest {
  const inputs = Array.isArray(request?.inputs) ? request.inputs : [];
  const n = inputs.length;
  const out: BindingRequest = { names: new Array(n), datatypes: new Array(n), shapes: new Array(n), datas: new Array(n), outputs: null };
  for (let i = 0; i < n; i += 1) {
    const t = inputs[i]!;
    out.names[i] = String(t?.name);
    out.datatypes[i] = String(t?.datatype);
    out.shapes[i] = Array.isArray(t?.shape) ? t.shape : [];
    out.datas[i] = t?.data;
  }
  if (Array.isArray(request?.outputs)) out.outputs = request.outputs.map(String);
  return out;
}
