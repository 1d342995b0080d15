/**
 * Runs one batch on a loaded model's first engine session directly, on the calling thread,
 * bypassing queues and batching: what tests and benchmarks compare the executor's infer() with.
 * Requests come from the test itself, so they name every input and are not checked here.
 */
import './test-addon.js';
import type { NativeModel } from '../../src/core/executor/executor-addon.js';
import { loadNativeAddon } from '../../src/core/executor/native.js';
import type { InferRequest, InferTensor, LoadedModel } from '../../src/core/executor/types.js';

type RunDirectAddon = { runDirect(model: NativeModel, datas: Uint8Array[], shapes: number[][]): Array<Uint8Array | number[]> };

export function runDirect(model: LoadedModel, request: InferRequest): InferTensor[] {
  const native = model.nativeModel?.();
  if (!native) throw new Error(`model '${model.name}' version ${model.version} is not loaded by the native executor`);
  const ordered = model.inputs.map((t) => {
    const input = request.inputs.find((i) => i.name === t.name);
    if (!input) throw new Error(`runDirect needs input '${t.name}' of model '${model.name}'`);
    return input;
  });
  const addon = loadNativeAddon() as unknown as RunDirectAddon;
  const raw = addon.runDirect(native, ordered.map((i) => i.data), ordered.map((i) => i.shape));
  return model.outputs.map((o, i) => ({ name: o.name, datatype: o.datatype, shape: raw[2 * i + 1] as number[], data: raw[2 * i] as Uint8Array }));
}
