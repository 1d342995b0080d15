/**
 * Pairs config tensors with the ONNX model Triton would load, for the config↔model rules.
 */
import { batchInputs } from '../config/model-config.js';
import type { OnnxModelInfo, OnnxTensorInfo } from '../model/onnx.js';
import type { ConfigContext } from './rule.js';

export interface LoadedOnnx {
  path: string;
  info: OnnxModelInfo;
}

/** The readable ONNX models the config's selected versions load (none for a config alone). */
export function onnxModels(ctx: ConfigContext): LoadedOnnx[] {
  const out: LoadedOnnx[] = [];
  for (const f of ctx.modelFiles()) if (f.kind === 'onnx') out.push({ path: f.path, info: f.info });
  return out;
}

export function modelTensor(model: OnnxModelInfo, io: 'input' | 'output', name: string): OnnxTensorInfo | undefined {
  return (io === 'input' ? model.inputs : model.outputs).find((t) => t.name === name);
}

/** A model tensor the config names under sequence_batching or batch_input instead of input/output. */
export interface SequenceTensor {
  kind: 'control' | 'state' | 'batch_input';
  io: 'input' | 'output';
  name: string;
  /** Where the config names it, for findings. */
  path: Array<string | number>;
  label: string;
}

/**
 * The model tensors sequence batching feeds and reads itself, as Triton does: each control input
 * (START, END, READY, CORRID) and, for implicit state, each state's input_name (fed with the
 * previous step's state) and output_name (read back as the next state). They are model inputs and
 * outputs that the config does not list under input/output.
 */
export function sequenceTensors(config: ConfigContext['config']): SequenceTensor[] {
  const seq = config.sequence_batching as
    | { control_input?: Array<{ name?: string }>; state?: Array<{ input_name?: string; output_name?: string }> }
    | undefined;
  const out: SequenceTensor[] = [];
  (seq?.control_input ?? []).forEach((c, i) => {
    if (c.name) out.push({ kind: 'control', io: 'input', name: c.name, path: ['sequence_batching', 'control_input', i, 'name'], label: `sequence control input '${c.name}'` });
  });
  (seq?.state ?? []).forEach((s, i) => {
    if (s.input_name) out.push({ kind: 'state', io: 'input', name: s.input_name, path: ['sequence_batching', 'state', i, 'input_name'], label: `state input '${s.input_name}'` });
    if (s.output_name) out.push({ kind: 'state', io: 'output', name: s.output_name, path: ['sequence_batching', 'state', i, 'output_name'], label: `state output '${s.output_name}'` });
  });
  return out;
}

/** The model inputs the batcher computes from each batch it forms: every batch_input's target_name. */
export function batchInputTargets(config: ConfigContext['config']): SequenceTensor[] {
  return batchInputs(config).flatMap((bi, i) =>
    (bi.target_name ?? []).map((name, k): SequenceTensor => ({ kind: 'batch_input', io: 'input', name, path: ['batch_input', i, 'target_name', k], label: `batch input target '${name}'` })));
}

/** The dims the model sees for a config tensor: the reshape when present (`shape: [ ]` is a scalar), else dims. */
export function modelFacingDims(tensor: { dims?: number[]; reshape?: { shape?: number[] } }): number[] {
  return (tensor.reshape ? tensor.reshape.shape ?? [] : tensor.dims ?? []).map(Number);
}
