/**
 * Python-backend models with a real Python (the .venv-test interpreter): model.py run by gebe's stub,
 * tensors through shared memory, errors with the traceback's last line, a process killed in the
 * middle of a request, finalize and bounded unload, bounded response sizes and the load errors.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseModelConfig } from '../../../src/core/config/index.js';
import type { InferTensor } from '../../../src/core/executor/types.js';
import { joinBytesElements, splitBytesElements } from '../../../src/core/kserve/codec/bytes-elements.js';
import { createLogger, silentLogger } from '../../../src/core/server/logger.js';
import { memoryIO } from '../../../src/io.js';
import { loadPythonModel, type PythonLoadContext } from '../../../src/core/python-backend/index.js';
import { environmentCache } from '../../../src/core/python-backend/packed-environment.js';
import { pythonForTests } from '../../helpers/python-env.js';
import { executorLoader } from '../../../src/commands/perf/executor-loader.js';
import { repoRoot } from '../../helpers/onnx-fixtures.js';

const python = pythonForTests();
let root: string;

const CONFIG = (name: string, extra = '') => `name: "${name}"\nbackend: "python"\nmax_batch_size: 8\n` +
  'input [ { name: "X" data_type: TYPE_FP32 dims: [ 3 ] } ]\noutput [ { name: "Y" data_type: TYPE_FP32 dims: [ 3 ] } ]\n' + extra;

/** A model directory with config.pbtxt and 1/model.py; returns its path. */
function pyModel(name: string, config: string, code: string): string {
  const dir = path.join(root, name);
  mkdirSync(path.join(dir, '1'), { recursive: true });
  writeFileSync(path.join(dir, 'config.pbtxt'), config);
  writeFileSync(path.join(dir, '1', 'model.py'), code);
  return dir;
}

async function load(dir: string, context: Partial<PythonLoadContext> = {}) {
  const config = parseModelConfig(readFileSync(path.join(dir, 'config.pbtxt'), 'utf8'), 'config.pbtxt').config;
  return loadPythonModel(dir, '1', { ...config, name: path.basename(dir) }, { log: silentLogger, ...context });
}

const f32 = (values: number[]): Uint8Array => new Uint8Array(new Float32Array(values).buffer);
const floats = (t: InferTensor): number[] => [...new Float32Array(t.data.slice().buffer)];
const X = (values: number[]): InferTensor => ({ name: 'X', datatype: 'FP32', shape: [values.length / 3, 3], data: f32(values) });

const DOUBLE = `
import numpy as np
import triton_python_backend_utils as pb_utils

class TritonPythonModel:
    def execute(self, requests):
        return [pb_utils.InferenceResponse([pb_utils.Tensor("Y", pb_utils.get_input_tensor_by_name(r, "X").as_numpy() * 2)]) for r in requests]
`;

beforeAll(() => {
  root = mkdtempSync(path.join(os.tmpdir(), 'gebe-python-model-'));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe.skipIf(!python.available)('Python-backend models', () => {
  it('hands model.py each request\'s timeout, and offers Triton\'s BYTES and data type helpers and get_model_dir()', async () => {
    const model = await load(pyModel('helpers', CONFIG('helpers', 'dynamic_batching { priority_levels: 2 default_priority_level: 1 default_queue_policy { allow_timeout_override: true timeout_action: REJECT } }\n'), `
import os
import numpy as np
import triton_python_backend_utils as pb_utils

def refused(fn):
    try:
        fn()
        return ""
    except pb_utils.TritonModelException as e:
        return str(e)

class TritonPythonModel:
    def execute(self, requests):
        words = np.array([b"ab", "c", b""], dtype=np.object_)
        wire = pb_utils.serialize_byte_tensor(words)
        checks = [
            list(pb_utils.deserialize_bytes_tensor(wire)) == [b"ab", b"c", b""],
            pb_utils.triton_to_numpy_type(11) is np.float32 and pb_utils.numpy_to_triton_type(np.object_) == 13,
            pb_utils.TRITON_STRING_TO_NUMPY["TYPE_FP16"] is np.float16,
            pb_utils.serialize_byte_tensor(np.zeros(2)) is None,
            requests[0].trace().get_context() is None,
            pb_utils.get_model_dir() == os.path.dirname(os.path.abspath(__file__)) and os.path.basename(pb_utils.get_model_dir()) == "1",
            refused(lambda: requests[0].set_release_flags(pb_utils.TRITONSERVER_REQUEST_RELEASE_RESCHEDULE)).startswith("Request is released with TRITONSERVER_REQUEST_RELEASE_RESCHEDULE, but the model does not run iterative sequences"),
        ]
        return [pb_utils.InferenceResponse([pb_utils.Tensor("Y", np.array([[r.timeout(), float(all(checks)), 0]], np.float32))]) for r in requests]
`));
    try {
      const answer = await model.infer({ inputs: [X([0, 0, 0])], timeoutUs: 250_000 });
      expect(floats(answer.outputs[0]!)).toEqual([250_000, 1, 0]);
      expect(floats((await model.infer({ inputs: [X([0, 0, 0])] })).outputs[0]!)).toEqual([0, 1, 0]);
    } finally {
      await model.unload();
    }
  });

  it('runs execute() on shared-memory inputs and batches queued requests into one call (dynamic_batching)', async () => {
    const model = await load(pyModel('double', CONFIG('double', 'dynamic_batching { }\n'), `${DOUBLE}
        # requests arrive together: record how many came in this call
`));
    try {
      const answers = await Promise.all(Array.from({ length: 6 }, (_, i) => model.infer({ inputs: [X([i, i + 1, i + 2])] })));
      answers.forEach((a, i) => expect(floats(a.outputs[0]!)).toEqual([2 * i, 2 * i + 2, 2 * i + 4]));
      const stats = model.stats();
      expect(stats.inference_count).toBe(6);
      expect(stats.inference_stats.success.count).toBe(6);
      // The first request runs alone; the five queued behind it reach one execute() together.
      expect(stats.execution_count).toBe(2);
      expect(stats.batch_stats.map((b) => b.batch_size)).toEqual([1, 5]);
      expect(model.engine).toBe('python');
    } finally {
      await model.unload();
    }
    expect(readdirSync('/dev/shm').filter((f) => f.startsWith(`gebe-python-${process.pid}-`))).toEqual([]);
  });

  it('gives initialize() Triton\'s args and round-trips BYTES tensors as numpy object arrays', async () => {
    const config = 'name: "strings"\nbackend: "python"\nmax_batch_size: 0\ninstance_group [ { count: 2 kind: KIND_CPU } ]\n' +
      'input [ { name: "S" data_type: TYPE_STRING dims: [ -1 ] } ]\noutput [ { name: "U" data_type: TYPE_STRING dims: [ -1 ] }, { name: "ARGS" data_type: TYPE_STRING dims: [ 1 ] } ]\n';
    const model = await load(pyModel('strings', config, `
import json
import numpy as np
import triton_python_backend_utils as pb_utils

class TritonPythonModel:
    def initialize(self, args):
        self.args = args
        cfg = json.loads(args["model_config"])
        assert pb_utils.get_input_config_by_name(cfg, "S")["data_type"] == "TYPE_STRING"
        assert pb_utils.triton_string_to_numpy("TYPE_STRING") == np.object_

    def execute(self, requests):
        out = []
        for r in requests:
            s = pb_utils.get_input_tensor_by_name(r, "S").as_numpy()
            assert s.dtype == np.object_ and all(isinstance(e, bytes) for e in s)
            u = np.array([e.upper() for e in s], dtype=np.object_)
            keys = {k: (v if k != "model_config" else json.loads(v)["name"]) for k, v in self.args.items()}
            out.append(pb_utils.InferenceResponse([pb_utils.Tensor("U", u), pb_utils.Tensor("ARGS", np.array([json.dumps(keys, sort_keys=True)], dtype=np.object_))]))
        return out
`));
    try {
      expect(model.instanceCount).toBe(2);
      const words = ['gebe', '', 'ünï'].map((w) => new TextEncoder().encode(w));
      const answer = await model.infer({ inputs: [{ name: 'S', datatype: 'BYTES', shape: [3], data: joinBytesElements(words) }] });
      const [u, args] = answer.outputs;
      expect(splitBytesElements(u!.data).map((b) => new TextDecoder().decode(b))).toEqual(['GEBE', '', 'üNï']); // bytes.upper() changes ASCII only
      const keys = JSON.parse(new TextDecoder().decode(splitBytesElements(args!.data)[0]!));
      expect(keys).toMatchObject({ model_config: 'strings', model_instance_kind: 'CPU', model_instance_device_id: '0', model_name: 'strings', model_version: '1', model_repository: path.join(root, 'strings') });
      expect(keys.model_instance_name).toMatch(/^strings_0_[01]$/);
    } finally {
      await model.unload();
    }
  });

  it('runs an async execute(), and puts print() output and pb_utils.Logger lines in gebe\'s log', async () => {
    const io = memoryIO();
    const model = await load(pyModel('chatty', CONFIG('chatty'), `
import asyncio
import triton_python_backend_utils as pb_utils

class TritonPythonModel:
    def initialize(self, args):
        print("hello from initialize")
        pb_utils.Logger.log_warn("careful")

    async def execute(self, requests):
        await asyncio.sleep(0)
        return [pb_utils.InferenceResponse([pb_utils.Tensor("Y", pb_utils.get_input_tensor_by_name(r, "X").as_numpy() + 1)]) for r in requests]
`), { log: createLogger(io.stderr) });
    try {
      expect(floats((await model.infer({ inputs: [X([1, 2, 3])] })).outputs[0]!)).toEqual([2, 3, 4]);
      await expect.poll(() => io.err()).toMatch(/ I hello from initialize model=chatty instance=chatty_0_0/);
      expect(io.err()).toMatch(/ W careful model=chatty instance=chatty_0_0/);
    } finally {
      await model.unload();
    }
  });

  it('fails a request whose execute() raises with the traceback\'s last line, and keeps serving', async () => {
    const model = await load(pyModel('raises', CONFIG('raises'), `
import triton_python_backend_utils as pb_utils

class TritonPythonModel:
    def execute(self, requests):
        x = pb_utils.get_input_tensor_by_name(requests[0], "X").as_numpy()
        if x[0, 0] < 0:
            raise ValueError(f"negative input {x[0, 0]}")
        if x[0, 0] == 7:
            return [pb_utils.InferenceResponse(error=pb_utils.TritonError("seven is not allowed", pb_utils.TritonError.INVALID_ARG))]
        return [pb_utils.InferenceResponse([pb_utils.Tensor("Y", x.astype("float64"))])]
`));
    try {
      const raised = await model.infer({ inputs: [X([-1, 0, 0])] }).catch((e: Error & { status: number }) => e);
      expect((raised as Error).message).toBe("Failed to process the request(s) for model instance 'raises_0_0', message: ValueError: negative input -1.0 (at model.py:8 in execute)");
      expect((raised as { status: number }).status).toBe(500);
      const refused = await model.infer({ inputs: [X([7, 0, 0])] }).catch((e: Error & { status: number }) => e);
      expect((refused as Error).message).toBe('seven is not allowed');
      expect((refused as { status: number }).status).toBe(400);
      const wrongType = await model.infer({ inputs: [X([1, 2, 3])] }).catch((e: Error) => e);
      expect((wrongType as Error).message).toMatch(/returned output 'Y' as FP64, but config.pbtxt declares TYPE_FP32/);
      expect(model.stats().inference_stats.fail.count).toBe(3);
    } finally {
      await model.unload();
    }
  });

  it('fails the load with the last line of an exception in initialize() or in the module', async () => {
    const init = pyModel('badinit', CONFIG('badinit'), 'class TritonPythonModel:\n    def initialize(self, args):\n        raise RuntimeError("no weights found")\n    def execute(self, r):\n        return []\n');
    await expect(load(init)).rejects.toThrow(/model.py failed to load: RuntimeError: no weights found \(at model\.py:3 in initialize\)/);
    const syntax = pyModel('badsyntax', CONFIG('badsyntax'), 'class TritonPythonModel:\n    def execute(self, requests)\n        return []\n');
    await expect(load(syntax)).rejects.toThrow(/model.py failed to load: SyntaxError/);
    const noExecute = pyModel('noexecute', CONFIG('noexecute'), 'class TritonPythonModel:\n    pass\n');
    await expect(load(noExecute)).rejects.toThrow(/has no execute\(self, requests\) method/);
  });

  it('fails the request in flight when the process is killed, and starts a new one for the next request', async () => {
    const model = await load(pyModel('killed', CONFIG('killed', 'output [ { name: "PID" data_type: TYPE_INT64 dims: [ 1 ] } ]\n'), `
import os
import time
import numpy as np
import triton_python_backend_utils as pb_utils

class TritonPythonModel:
    def execute(self, requests):
        x = pb_utils.get_input_tensor_by_name(requests[0], "X").as_numpy()
        if x[0, 0] == 1:
            time.sleep(60)
        return [pb_utils.InferenceResponse([pb_utils.Tensor("Y", x), pb_utils.Tensor("PID", np.array([[os.getpid()]], dtype=np.int64))])]
`));
    try {
      const pidOf = async () => {
        const answer = await model.infer({ inputs: [X([0, 0, 0])], outputs: ['PID'] });
        return Number(new BigInt64Array(answer.outputs[0]!.data.slice().buffer)[0]);
      };
      const first = await pidOf();
      const slow = model.infer({ inputs: [X([1, 0, 0])] }).catch((e: Error) => e);
      await new Promise((r) => setTimeout(r, 300));
      process.kill(first, 'SIGKILL');
      expect(((await slow) as Error).message).toMatch(/Python process of instance 'killed_0_0' of model 'killed' ended: it was killed by SIGKILL while running execute\(\)/);
      const second = await pidOf();
      expect(second).not.toBe(first);
    } finally {
      await model.unload();
    }
  });

  it('ends a process that breaks the control protocol, failing its request, and serves the next one', async () => {
    const model = await load(pyModel('garbage', CONFIG('garbage'), `
import os
import triton_python_backend_utils as pb_utils

class TritonPythonModel:
    def execute(self, requests):
        x = pb_utils.get_input_tensor_by_name(requests[0], "X").as_numpy()
        if x[0, 0] == 1:
            os.write(4, b"\\xff\\xff\\xff\\xff")  # announces a 4 GiB control message
        if x[0, 0] == 2:
            os.close(4)
        return [pb_utils.InferenceResponse([pb_utils.Tensor("Y", x)])]
`));
    try {
      const huge = await model.infer({ inputs: [X([1, 0, 0])] }).catch((e: Error) => e);
      expect((huge as Error).message).toMatch(/it broke the control protocol \(a control message of 4294967295 bytes exceeds the limit of 4194304\)/);
      expect(floats((await model.infer({ inputs: [X([0, 5, 6])] })).outputs[0]!)).toEqual([0, 5, 6]);
      const closed = await model.infer({ inputs: [X([2, 0, 0])] }).catch((e: Error) => e);
      expect((closed as Error).message).toMatch(/ended: it exited with code 1; its last stderr lines: .*OSError: \[Errno 9\] Bad file descriptor/);
      expect(floats((await model.infer({ inputs: [X([0, 7, 8])] })).outputs[0]!)).toEqual([0, 7, 8]);
    } finally {
      await model.unload();
    }
  });

  it('runs finalize() at unload, and kills a process that hangs after the grace period', async () => {
    const marker = path.join(root, 'finalized.txt');
    const tidy = await load(pyModel('tidy', CONFIG('tidy'), `${DOUBLE}
    def finalize(self):
        open(${JSON.stringify(marker)}, "w").write("bye")
`));
    await tidy.unload();
    expect(readFileSync(marker, 'utf8')).toBe('bye');

    const hung = await load(pyModel('hung', CONFIG('hung'), 'import time\nclass TritonPythonModel:\n    def execute(self, requests):\n        time.sleep(3600)\n'), { unloadGraceMs: 200 });
    const stuck = hung.infer({ inputs: [X([0, 0, 0])] }).catch((e: Error) => e);
    const queued = hung.infer({ inputs: [X([1, 0, 0])] }).catch((e: Error) => e);
    await new Promise((r) => setTimeout(r, 200));
    await hung.unload();
    expect(((await stuck) as Error).message).toMatch(/killed by SIGKILL while running execute/);
    expect(((await queued) as Error).message).toMatch(/is unloading/);
  });

  it('bounds what the Python side may answer: a response beyond the shared-memory cap fails that request', async () => {
    const model = await load(pyModel('huge', 'name: "huge"\nbackend: "python"\nmax_batch_size: 0\ninput [ { name: "N" data_type: TYPE_INT64 dims: [ 1 ] } ]\noutput [ { name: "Y" data_type: TYPE_UINT8 dims: [ -1 ] } ]\n', `
import numpy as np
import triton_python_backend_utils as pb_utils

class TritonPythonModel:
    def execute(self, requests):
        n = int(pb_utils.get_input_tensor_by_name(requests[0], "N").as_numpy()[0])
        return [pb_utils.InferenceResponse([pb_utils.Tensor("Y", np.ones(n, dtype=np.uint8))])]
`), { shmCapBytes: 1 << 20 });
    const n = (v: number): InferTensor => ({ name: 'N', datatype: 'INT64', shape: [1], data: new Uint8Array(new BigInt64Array([BigInt(v)]).buffer) });
    try {
      const small = await model.infer({ inputs: [n(1000)] });
      expect(small.outputs[0]!.data.byteLength).toBe(1000);
      const big = await model.infer({ inputs: [n(4 << 20)] }).catch((e: Error) => e);
      expect((big as Error).message).toMatch(/output 'Y' needs 4194304 bytes of shared memory, beyond gebe's limit of 1048576 bytes/);
      expect((await model.infer({ inputs: [n(10)] })).outputs[0]!.data.byteLength).toBe(10);
    } finally {
      await model.unload();
    }
  });

  it('bounds the BLS responses of an execute() coroutine by the same cap: one too big fails alone, the others arrive', async () => {
    const ones = await load(pyModel('ones', 'name: "ones"\nbackend: "python"\nmax_batch_size: 0\ninput [ { name: "N" data_type: TYPE_INT64 dims: [ 1 ] } ]\noutput [ { name: "Y" data_type: TYPE_UINT8 dims: [ -1 ] } ]\n', `
import numpy as np
import triton_python_backend_utils as pb_utils

class TritonPythonModel:
    def execute(self, requests):
        return [pb_utils.InferenceResponse([pb_utils.Tensor("Y", np.ones(int(pb_utils.get_input_tensor_by_name(r, "N").as_numpy()[0]), np.uint8))]) for r in requests]
`));
    // Asks ones for 2 MiB and for 10 bytes at once; answers the first's error and the second's sum.
    const caller = await load(pyModel('gathers', 'name: "gathers"\nbackend: "python"\nmax_batch_size: 0\ninput [ { name: "N" data_type: TYPE_INT64 dims: [ 1 ] } ]\noutput [ { name: "E" data_type: TYPE_STRING dims: [ 1 ] }, { name: "S" data_type: TYPE_INT64 dims: [ 1 ] } ]\n', `
import asyncio
import numpy as np
import triton_python_backend_utils as pb_utils

class TritonPythonModel:
    async def execute(self, requests):
        ask = lambda n: pb_utils.InferenceRequest(model_name="ones", inputs=[pb_utils.Tensor("N", np.array([n], np.int64))], requested_output_names=["Y"])
        big, small = await asyncio.gather(ask(2 << 20).async_exec(), ask(10).async_exec())
        error = big.error().message() if big.has_error() else "no error"
        total = int(pb_utils.get_output_tensor_by_name(small, "Y").as_numpy().sum())
        return [pb_utils.InferenceResponse([pb_utils.Tensor("E", np.array([error.encode()], np.object_)), pb_utils.Tensor("S", np.array([total], np.int64))])]
`), { shmCapBytes: 1 << 20, lookup: { resolve: () => ones } });
    const n = (v: number): InferTensor => ({ name: 'N', datatype: 'INT64', shape: [1], data: new Uint8Array(new BigInt64Array([BigInt(v)]).buffer) });
    try {
      for (let round = 0; round < 2; round++) { // the dropped response leaves nothing behind for the next call
        const answer = await caller.infer({ inputs: [n(0)] });
        const error = Buffer.from(splitBytesElements(answer.outputs.find((t) => t.name === 'E')!.data)[0]!).toString();
        expect(error).toBe("the BLS response of model 'ones' needs 2097152 bytes of shared memory, beyond gebe's limit of 1048576 bytes for one execute() of a Python model");
        expect(new BigInt64Array(answer.outputs.find((t) => t.name === 'S')!.data.slice().buffer)[0]).toBe(10n);
      }
    } finally {
      await Promise.all([caller.unload(), ones.unload()]);
    }
  });

  it('runs in process for perf, tune and infer: their loader takes the Python backend for backend "python"', async () => {
    const dir = path.join(repoRoot, 'fixtures/python_repository/digits_label');
    const config = parseModelConfig(readFileSync(path.join(dir, 'config.pbtxt'), 'utf8'), 'config.pbtxt').config;
    const model = await (await executorLoader())(dir, '1', config);
    try {
      expect(model.engine).toBe('python');
      const probabilities = [0, 0, 0, 0, 0, 0.9, 0, 0, 0.1, 0];
      const answer = await model.infer({ inputs: [{ name: 'probabilities', datatype: 'FP32', shape: [1, 10], data: f32(probabilities) }] });
      expect(splitBytesElements(answer.outputs[0]!.data).map((b) => Buffer.from(b).toString())).toEqual(['five']);
    } finally {
      await model.unload();
    }
  });

  it('runs model.py in a packed environment (EXECUTION_ENV_PATH naming a .tar.gz, as conda-pack makes), unpacked into the cache', async () => {
    // A venv that finds the tests' numpy through a .pth file, packed as conda-pack packs one.
    const venv = path.join(root, 'to-pack-venv');
    execFileSync('python3', ['-m', 'venv', '--without-pip', venv]);
    const ask = (python: string, code: string) => execFileSync(python, ['-c', code], { encoding: 'utf8' }).trim();
    const sitePackages = ask(path.join(venv, 'bin', 'python3'), 'import sysconfig; print(sysconfig.get_paths()["purelib"])');
    writeFileSync(path.join(sitePackages, 'tests-numpy.pth'), `${ask('python3', 'import numpy, os; print(os.path.dirname(os.path.dirname(numpy.__file__)))')}\n`);
    const parameters = [
      'parameters { key: "EXECUTION_ENV_PATH" value: { string_value: "$$TRITON_MODEL_DIRECTORY/python3.tar.gz" } }',
      `parameters { key: "cache" value: { string_value: "${environmentCache()}" } }`, '',
    ].join('\n');
    const dir = pyModel('packed', CONFIG('packed', parameters), `
import json, os, sys
import numpy as np
import triton_python_backend_utils as pb_utils

class TritonPythonModel:
    def initialize(self, args):
        self.cache = json.loads(args["model_config"])["parameters"]["cache"]["string_value"]

    def execute(self, requests):
        cache = self.cache
        checks = [sys.prefix.startswith(cache + os.sep), os.environ["LD_LIBRARY_PATH"].startswith(os.path.join(sys.prefix, "lib")),
                  os.environ["PATH"].startswith(os.path.join(sys.prefix, "bin"))]
        return [pb_utils.InferenceResponse([pb_utils.Tensor("Y", np.array([[float(c) for c in checks]], np.float32))]) for _ in requests]
`);
    execFileSync('tar', ['-czf', path.join(dir, 'python3.tar.gz'), '-C', venv, '.']);
    rmSync(venv, { recursive: true, force: true });
    const model = await load(dir);
    try {
      expect(floats((await model.infer({ inputs: [X([0, 0, 0])] })).outputs[0]!)).toEqual([1, 1, 1]);
    } finally {
      await model.unload();
    }
  });

  it('says what to install when the interpreter has no numpy (EXECUTION_ENV_PATH names a venv without it)', async () => {
    const env = path.join(root, 'bare-env');
    execFileSync('python3', ['-m', 'venv', '--without-pip', env]);
    const dir = pyModel('nonumpy', CONFIG('nonumpy', 'parameters { key: "EXECUTION_ENV_PATH" value: { string_value: "$$TRITON_MODEL_DIRECTORY/../bare-env" } }\n'), DOUBLE);
    await expect(load(dir)).rejects.toThrow(/numpy is not installed for .*bare-env\/bin\/python3: install it with `.*bare-env\/bin\/python3 -m pip install numpy`/);
    expect(existsSync(path.join(env, 'bin', 'python3'))).toBe(true);
  });
});
