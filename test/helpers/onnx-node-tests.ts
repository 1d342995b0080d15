/**
 * The ONNX node tests of Debian's libonnx-testdata, re-run with other input shapes: each test's model
 * with its graph inputs made symbolic (re-encoded with protobufjs over the project's onnx.proto), and
 * its first data set's inputs.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import type { CpuTensor } from './cpu-session.js';
import { onnxRoot } from './onnx-builder.js';
import { readTensorProto } from './onnx-tensor-proto.js';

export const NODE_TESTS_DIR = '/usr/share/libonnx-testdata/data/node';

interface Dimension { dimValue?: unknown; dimParam?: string }
interface ValueInfo { type?: { tensorType?: { shape?: { dim?: Dimension[] } } } }

/** The model with every graph input's dims symbolic and the outputs' shapes dropped. */
export function withSymbolicInputs(model: Uint8Array): Uint8Array {
  const type = onnxRoot().lookupType('onnx.ModelProto');
  const m = type.toObject(type.decode(model), { defaults: false }) as { graph: { input?: ValueInfo[]; output?: ValueInfo[]; valueInfo?: unknown[] } };
  m.graph.input?.forEach((vi, i) => vi.type?.tensorType?.shape?.dim?.forEach((d, j) => {
    delete d.dimValue;
    d.dimParam = `d${i}_${j}`;
  }));
  m.graph.output?.forEach((vi) => { if (vi.type?.tensorType) delete vi.type.tensorType.shape; });
  delete m.graph.valueInfo;
  return type.encode(type.fromObject(m)).finish();
}

/**
 * A data set's inputs (input_0.pb, input_1.pb, ... as far as they go), named and typed as the
 * session declares them. Throws where a file has no graph input or a type the engine does not take.
 */
export function readDataSetInputs(setDir: string, declared: ReadonlyArray<{ name: string; datatype: string }>): CpuTensor[] {
  const inputs: CpuTensor[] = [];
  for (let i = 0; existsSync(path.join(setDir, `input_${i}.pb`)); i++) {
    const t = readTensorProto(path.join(setDir, `input_${i}.pb`));
    const decl = declared[i];
    if (!decl) throw new Error(`input_${i}.pb has no matching graph input`);
    if (!t.datatype || !t.data) throw new Error(`input ${decl.name} has ONNX type ${t.onnxType}, which the engine does not take`);
    // ONNX 1.12's data stores BFLOAT16 tensors as UINT16 bit patterns.
    const datatype = t.datatype === 'UINT16' && decl.datatype === 'BF16' ? 'BF16' : t.datatype;
    inputs.push({ name: decl.name, datatype, dims: t.dims, data: t.data } as CpuTensor);
  }
  return inputs;
}

export interface NodeTest {
  name: string;
  /** The model with symbolic inputs. */
  model: Uint8Array;
  /** test_data_set_0's inputs, one per declared input; undefined where readDataSetInputs refuses them or some are missing. */
  inputs(declared: ReadonlyArray<{ name: string; datatype: string }>): CpuTensor[] | undefined;
}

/** Every node test with a first data set, in name order. */
export function nodeTests(): NodeTest[] {
  return readdirSync(NODE_TESTS_DIR).filter((d) => d.startsWith('test_') && existsSync(path.join(NODE_TESTS_DIR, d, 'test_data_set_0'))).sort()
    .map((name) => ({
      name,
      model: withSymbolicInputs(readFileSync(path.join(NODE_TESTS_DIR, name, 'model.onnx'))),
      inputs(declared) {
        try {
          const inputs = readDataSetInputs(path.join(NODE_TESTS_DIR, name, 'test_data_set_0'), declared);
          return inputs.length === declared.length ? inputs : undefined;
        } catch {
          return undefined;
        }
      },
    }));
}
