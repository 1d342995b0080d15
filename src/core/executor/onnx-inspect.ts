/**
 * What the cpu engine reads of an ONNX model without serving it: inputs, outputs, opset, and
 * everything it cannot run: operators, attribute values, element types, including those its
 * kernels refuse mid-graph (its own check, CheckModel in native/src/cpu/program.h, the one its
 * loader refuses with). The ENGINE_UNSUPPORTED lint rule asks it, so validate and serve never disagree.
 */
import { GebeError } from '../../errors.js';
import { nativeModule } from './native.js';

export interface CpuTensorDesc {
  name: string;
  datatype: string;
  /** -1 for a dynamic dim. */
  dims: number[];
  /** Symbolic name of each dim ('' when it has none). */
  dimNames: string[];
}

export interface CpuModelInfo {
  irVersion: number;
  opset: number;
  producer: string;
  inputs: CpuTensorDesc[];
  outputs: CpuTensorDesc[];
  /** Operator histogram of the graph as exported. */
  operators: Record<string, number>;
  supportedOperators: string[];
  /** What the engine cannot run (an operator, an attribute value, an element type) → the nodes or tensors concerned. */
  unsupportedOperators: Record<string, string[]>;
  /** The same findings, each worded as gebe serve's load error lists it: "what (node, node, …)". */
  unsupportedFindings: string[];
}

/** Reads a model's inputs, outputs, opset and operators without failing on what the engine cannot run. */
export function inspectOnnxModel(path: string): CpuModelInfo {
  if (typeof path !== 'string' || path.length === 0) {
    throw new GebeError(`Expected a model file path for path but received ${JSON.stringify(path)}`);
  }
  const cpuInspect = nativeModule<(path: string) => CpuModelInfo>('cpuInspect', 'the cpu engine');
  try {
    return cpuInspect(path);
  } catch (err) {
    throw new GebeError(`${path}: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
  }
}
