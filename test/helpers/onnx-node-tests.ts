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

export interface NodeTest {
  name: string;
  /** The model with symbolic inputs. */
  model: Uint8Array;
  /** test_data_set_0's inputs as the session declares them (ONNX 1.12 stores BF16 as UINT16). */
  inputs(declared: Array<{ name: string; datatype: string }>): CpuTensor[] | undefined;
}

/** Every node test with a first data set, in name order. */
export function nodeTests(): NodeTest[] {
  return readdirSync(NODE_TESTS_DIR).filter((d) => d.startsWith('test_') && existsSync(path.join(NODE_TESTS_DIR, d, 'test_data_set_0'))).sort()
    .map((name) => ({
      name,
      model: withSymbolicInputs(readFileSync(path.join(NODE_TESTS_DIR, name, 'model.onnx'))),
      inputs(declared: Array<{ name: string; datatype: string }>) {
        const setDir = path.join(NODE_TESTS_DIR, name, 'test_data_set_0');
        const out: CpuTensor[] = [];
        for (let i = 0; i < declared.length; i++) {
          const file = path.join(setDir, `input_${i}.pb`);
          if (!existsSync(file)) return undefined;
          const t = readTensorProto(file);
          if (!t.datatype || !t.data) return undefined;
          const datatype = t.datatype === 'UINT16' && declared[i].datatype === 'BF16' ? 'BF16' : t.datatype;
          out.push({ name: declared[i].name, datatype, dims: t.dims, data: t.data } as CpuTensor);
        }
        return out;
      },
    }));
}
