/**
 * What `gebe compare --against` compares with: another model file of the same model directory run
 * in process (`1/model.om`: the ascend engine beside the cpu engine), a KServe v2 server
 * (`http://host:port`, `grpc://host:port`), or a directory of stored outputs (`<sample>_<i>.npy`
 * or `.bin`, output i in the model's order, as ais_bench writes them).
 */
import fs from 'node:fs';
import path from 'node:path';
import { UsageError } from '../../errors.js';
import { engineForModelFile, loadModel } from '../../core/executor/index.js';
import type { InferTensor, TensorMetadata } from '../../core/executor/types.js';
import { NpyError, parseNpy } from '../../core/numpy/npy.js';
import { DATATYPE_SIZE } from '../../core/kserve/datatypes.js';
import { openGrpcTarget, openHttpTarget } from '../infer/remote-target.js';
import type { RemoteConnection } from '../../core/kserve/client/connection.js';
import type { LocalModel } from '../infer/local-target.js';
import type { Sample } from './inputs.js';

export interface ReferenceSource {
  /** For messages and reports: "in process, ascend engine (1/model.om)", a URL, a directory. */
  where: string;
  /** The reference outputs for one sample; `actual` are the model's (shapes for raw .bin files). */
  outputs(sample: Sample, outputs: TensorMetadata[], actual: InferTensor[]): Promise<InferTensor[]>;
  close(): Promise<void>;
}

export type AgainstSpec =
  | { kind: 'model-file'; version: string; file: string }
  | { kind: 'http'; url: string }
  | { kind: 'grpc'; address: string }
  | { kind: 'stored'; dir: string };

/** Reads --against: a URL, a model file inside the model directory, or a directory of outputs. */
export function parseAgainst(value: string, modelDir: string, cwd: string): AgainstSpec {
  if (/^https?:\/\//i.test(value)) return { kind: 'http', url: value };
  if (/^grpc:\/\//i.test(value)) return { kind: 'grpc', address: value.slice('grpc://'.length).replace(/\/+$/, '') };
  if (engineForModelFile(value)) {
    const file = fs.existsSync(path.resolve(modelDir, value)) ? path.resolve(modelDir, value) : path.resolve(cwd, value);
    const relative = path.relative(modelDir, file);
    const [version, name, ...rest] = relative.split(path.sep);
    if (relative.startsWith('..') || path.isAbsolute(relative) || !version || !/^[1-9]\d*$/.test(version) || !name || rest.length > 0) {
      throw new UsageError(`--against ${value}: a model file must sit in a version directory of the model, such as ${path.join(modelDir, '1', path.basename(value))}`, 'write it relative to the model directory, e.g. --against 1/model.om');
    }
    if (!fs.existsSync(file)) throw new UsageError(`--against ${value}: ${file} does not exist`, 'convert the model first (gebe convert), or name a file that is there');
    return { kind: 'model-file', version, file };
  }
  const dir = path.resolve(cwd, value);
  if (fs.existsSync(dir) && fs.statSync(dir).isDirectory()) return { kind: 'stored', dir };
  throw new UsageError(
    `--against ${value}: not an http:// or grpc:// URL, a .onnx/.om file of the model, or a directory of stored outputs`,
    'e.g. --against 1/model.om, --against http://localhost:8000, or --against ais_bench_output/',
  );
}

/** `connection`: TLS and the user's headers (-H), for a server. */
export async function openReference(spec: AgainstSpec, local: LocalModel, repo: string, connection?: RemoteConnection): Promise<ReferenceSource> {
  const name = local.config.name!;
  switch (spec.kind) {
    case 'model-file': {
      const model = await loadModel(local.modelDir, spec.version, { ...local.config, default_model_filename: path.basename(spec.file) });
      return {
        where: `in process, ${model.engine} engine (${path.relative(local.modelDir, spec.file)})`,
        outputs: async (sample, outputs) => (await model.infer({ inputs: sample.tensors, outputs: outputs.map((o) => o.name) })).outputs,
        close: () => model.unload(),
      };
    }
    case 'http':
    case 'grpc': {
      const target = spec.kind === 'http'
        ? await openHttpTarget(spec.url, name, local.version, repo, connection)
        : await openGrpcTarget(spec.address, name, local.version, repo, connection);
      return {
        where: target.where,
        outputs: (sample, outputs) => target.infer(sample.tensors, outputs.map((o) => o.name)),
        close: () => target.close(),
      };
    }
    case 'stored':
      return storedOutputs(spec.dir);
  }
}

function storedOutputs(dir: string): ReferenceSource {
  return {
    where: dir,
    async outputs(sample, outputs, actual) {
      return outputs.map((output, i) => {
        const base = path.join(dir, `${sample.name}_${i}`);
        const npy = `${base}.npy`;
        const bin = `${base}.bin`;
        if (fs.existsSync(npy)) {
          try {
            const array = parseNpy(fs.readFileSync(npy), npy);
            return { name: output.name, datatype: array.datatype, shape: array.shape, data: array.data };
          } catch (err) {
            if (err instanceof NpyError) throw new UsageError(err.message);
            throw err;
          }
        }
        if (fs.existsSync(bin)) {
          // Raw bytes carry no dtype or shape: read them as the model's output.
          const data = new Uint8Array(fs.readFileSync(bin));
          const mine = actual.find((t) => t.name === output.name);
          const shape = mine?.shape ?? output.shape;
          const expected = shape.reduce((a, b) => a * b, 1) * DATATYPE_SIZE[output.datatype];
          if (output.datatype === 'BYTES' || data.byteLength !== expected) {
            throw new UsageError(`${bin} has ${data.byteLength} bytes but output "${output.name}" is ${output.datatype} [${shape.join(', ')}] (${expected} bytes)`, 'store it as .npy, which records dtype and shape');
          }
          return { name: output.name, datatype: output.datatype, shape, data };
        }
        throw new UsageError(`no stored output for sample "${sample.name}", output ${i} ("${output.name}"): neither ${npy} nor ${bin} exists`, 'stored outputs are named <input file base name>_<output index>.npy|.bin, as ais_bench writes them');
      });
    },
    close: async () => {},
  };
}
