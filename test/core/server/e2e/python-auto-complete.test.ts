/**
 * Triton's auto-complete of Python models: model.py's TritonPythonModel.auto_complete_config(config)
 * fills what config.pbtxt leaves out (inputs, outputs, max_batch_size, dynamic batching, decoupled),
 * and the model is served with the config it returns: metadata, the config endpoint, initialize()'s
 * args and the requests it takes. Conflicts raise in model.py and fail the load with its reason; a
 * completed config is checked as a config.pbtxt is. Real Python, a real server.
 */
import { execFileSync } from 'node:child_process';
import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pythonForTests } from '../../../helpers/python-env.js';
import { getJson, postJson } from '../helpers/http-client.js';
import { repoRoot, startRealServer, type RealServer } from './helpers.js';

const python = pythonForTests();

const ECHO = [
  '    def initialize(self, args):',
  '        import json',
  '        self.config = json.loads(args["model_config"])',
  '    def execute(self, requests):',
  '        out = []',
  '        for r in requests:',
  '            x = pb_utils.get_input_tensor_by_name(r, "IN").as_numpy()',
  '            seen = np.full(x.shape[:-1] + (1,), len(self.config["input"]), np.int32)',
  '            out.append(pb_utils.InferenceResponse([pb_utils.Tensor("OUT", x * 2), pb_utils.Tensor("SEEN", seen)]))',
  '        return out',
];

const HEADER = ['import os', 'import numpy as np', 'import triton_python_backend_utils as pb_utils'];

/** What the echo models' auto_complete_config adds. */
const ECHO_TENSORS = [
  '        config.add_input({"name": "IN", "data_type": "TYPE_FP32", "dims": [2]})',
  '        config.add_output({"name": "OUT", "data_type": "TYPE_FP32", "dims": [2]})',
  '        config.add_output({"name": "SEEN", "data_type": "TYPE_INT32", "dims": [1]})',
];

/** The execute() of a model whose load is expected to fail before any request. */
const EXECUTES_NOTHING = ['    def execute(self, requests):', '        return []'];

/** A class whose static auto_complete_config(config) runs `body`, then returns the config. */
const completing = (name: string, body: string[]) => [`class ${name}:`, '    @staticmethod', '    def auto_complete_config(config):', ...body, '        return config'];

/** Each model: its config.pbtxt and model.py (and other files of its version directory). */
const MODELS: Record<string, { config: string; files: Record<string, string[]> }> = {
  // config.pbtxt names only the backend; everything else comes from model.py.
  minimal: {
    config: 'backend: "python"\n',
    files: {
      'model.py': [...HEADER,
        ...completing('TritonPythonModel', [
          ...ECHO_TENSORS,
          '        config.set_max_batch_size(4)',
          '        config.set_dynamic_batching()',
        ]),
        ...ECHO],
    },
  },
  // The method comes from a base class in another module, and config.pbtxt declares one of the
  // tensors (its dims left for model.py to fill).
  inherited: {
    config: 'backend: "python"\ninput [ { name: "IN" data_type: TYPE_FP32 dims: [ 2 ] } ]\n',
    files: {
      'base.py': [...HEADER,
        ...completing('Base', [...ECHO_TENSORS]),
        ...ECHO],
      'model.py': [...HEADER, 'from base import Base', 'class TritonPythonModel(Base):', '    pass'],
    },
  },
  // Decoupled by model.py's word (the vLLM backend's pattern).
  streaming: {
    config: 'backend: "python"\n',
    files: {
      'model.py': [...HEADER,
        ...completing('TritonPythonModel', [
          '        config.add_input({"name": "IN", "data_type": "TYPE_INT32", "dims": [1]})',
          '        config.add_output({"name": "OUT", "data_type": "TYPE_INT32", "dims": [1]})',
          '        config.set_model_transaction_policy(dict(decoupled=True))',
        ]),
        '    def execute(self, requests):',
        '        for r in requests:',
        '            sender = r.get_response_sender()',
        '            n = int(pb_utils.get_input_tensor_by_name(r, "IN").as_numpy()[0])',
        '            for i in range(n):',
        '                sender.send(pb_utils.InferenceResponse([pb_utils.Tensor("OUT", np.array([i], np.int32))]))',
        '            sender.send(flags=pb_utils.TRITONSERVER_RESPONSE_COMPLETE_FINAL)',
      ],
    },
  },
  // model.py disagrees with config.pbtxt: the load fails with model.py's ValueError.
  conflict: {
    config: 'backend: "python"\ninput [ { name: "IN" data_type: TYPE_FP32 dims: [ 2 ] } ]\n',
    files: {
      'model.py': [...HEADER,
        ...completing('TritonPythonModel', [
          '        config.add_input({"name": "IN", "data_type": "TYPE_INT32", "dims": [2]})',
        ]),
        ...EXECUTES_NOTHING],
    },
  },
  // A completed config that config.pbtxt could not hold either: checked as one.
  invalid: {
    config: 'backend: "python"\n',
    files: {
      'model.py': [...HEADER,
        ...completing('TritonPythonModel', [
          '        config.add_input({"name": "IN", "data_type": "TYPE_FP32", "dims": [0]})',
          '        config.add_output({"name": "OUT", "data_type": "TYPE_FP32", "dims": [1]})',
        ]),
        ...EXECUTES_NOTHING],
    },
  },
  // Reaches for another model from auto_complete_config(), which runs before any is: a BLS request
  // answers an error and load_model raises (neither waits for a reply that never comes).
  reaching: {
    config: 'backend: "python"\n',
    files: {
      'model.py': [...HEADER,
        ...completing('TritonPythonModel', [
          '        said = pb_utils.InferenceRequest(model_name="minimal", inputs=[], requested_output_names=[]).exec()',
          '        try:',
          '            pb_utils.load_model("minimal")',
          '        except pb_utils.TritonModelException as e:',
          '            raise ValueError(said.error().message() + " / " + str(e))',
        ]),
        ...EXECUTES_NOTHING],
    },
  },
  // A complete config.pbtxt and no auto_complete_config: no pass, so model.py is imported once.
  complete: {
    config: 'backend: "python"\ninput [ { name: "IN" data_type: TYPE_FP32 dims: [ 2 ] } ]\noutput [ { name: "OUT" data_type: TYPE_FP32 dims: [ 2 ] }, { name: "SEEN" data_type: TYPE_INT32 dims: [ 1 ] } ]\n',
    files: {
      'model.py': [...HEADER,
        'with open(os.path.join(os.path.dirname(__file__), "..", "imports"), "a") as f:',
        '    f.write("imported\\n")',
        'class TritonPythonModel:',
        ...ECHO],
    },
  },
};

let server: RealServer;

async function infer(model: string): Promise<{ status: number; body: any }> {
  return postJson(`${server.http}/v2/models/${model}/infer`, { inputs: [{ name: 'IN', datatype: 'FP32', shape: model === 'minimal' ? [1, 2] : [2], data: [1.5, -2] }] });
}

describe.skipIf(!python.available)('auto_complete_config of Python models', () => {
  beforeAll(async () => {
    const repo = mkdtempSync(path.join(os.tmpdir(), 'gebe-auto-complete-'));
    for (const [name, m] of Object.entries(MODELS)) {
      mkdirSync(path.join(repo, name, '1'), { recursive: true });
      writeFileSync(path.join(repo, name, 'config.pbtxt'), m.config);
      for (const [file, lines] of Object.entries(m.files)) writeFileSync(path.join(repo, name, '1', file), [...lines, ''].join('\n'));
    }
    appendFileSync(path.join(repo, 'complete', 'imports'), '');
    server = await startRealServer(repo, 'explicit', ['minimal', 'inherited', 'streaming', 'complete']);
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('serves the config model.py completed: metadata, the config endpoint, initialize() and requests', async () => {
    const meta = await getJson(`${server.http}/v2/models/minimal`);
    expect(meta.body).toMatchObject({
      inputs: [{ name: 'IN', datatype: 'FP32', shape: [-1, 2] }],
      outputs: [{ name: 'OUT', datatype: 'FP32', shape: [-1, 2] }, { name: 'SEEN', datatype: 'INT32', shape: [-1, 1] }],
    });
    const config = await getJson(`${server.http}/v2/models/minimal/config`);
    expect(config.body).toMatchObject({ name: 'minimal', backend: 'python', max_batch_size: 4, dynamic_batching: {} });
    const res = await infer('minimal');
    expect(res.status).toBe(200);
    expect(res.body.outputs.map((o: { name: string; data: number[] }) => [o.name, o.data])).toEqual([['OUT', [3, -4]], ['SEEN', [1]]]);
  });

  it('takes an auto_complete_config a base class in another module defines', async () => {
    const res = await infer('inherited');
    expect(res.status).toBe(200);
    expect(res.body.outputs[0].data).toEqual([3, -4]);
  });

  it('makes a model decoupled when model.py says so', async () => {
    const config = await getJson(`${server.http}/v2/models/streaming/config`);
    expect(config.body.model_transaction_policy).toEqual({ decoupled: true });
    const sse = await fetch(`${server.http}/v2/models/streaming/generate_stream`, { method: 'POST', body: JSON.stringify({ IN: 2 }) });
    expect(await sse.text()).toBe('data: {"model_name":"streaming","model_version":"1","OUT":0}\n\ndata: {"model_name":"streaming","model_version":"1","OUT":1}\n\n');
  });

  it('fails the load with model.py\'s reason when it disagrees with config.pbtxt, or completes a config no config may be', async () => {
    const conflict = await postJson(`${server.http}/v2/repository/models/conflict/load`, {});
    expect(conflict.status).toBe(400);
    expect(conflict.body.error).toBe("failed to load 'conflict': model 'conflict': model.py failed to load: ValueError: auto_complete_config() of model 'conflict': input 'IN' is TYPE_INT32, but config.pbtxt declares TYPE_FP32 (at model.py:7 in auto_complete_config)");
    const invalid = await postJson(`${server.http}/v2/repository/models/invalid/load`, {});
    expect(invalid.status).toBe(400);
    expect(invalid.body.error).toMatch(/^failed to load 'invalid': invalid\/config\.pbtxt \(as model\.py's auto_complete_config\(\) completed it\):\d+:\d+ TENSOR_DIM_INVALID model input 'IN' dimension must be integer >= 1, or -1 to indicate a variable-size dimension, got 0$/);
  });

  it('tells an auto_complete_config() that reaches for other models that none is reachable yet', async () => {
    const reaching = await postJson(`${server.http}/v2/repository/models/reaching/load`, {});
    const none = "none is reachable here (outside `gebe serve`, or from auto_complete_config(), which runs before the server's models are)";
    expect(reaching.body.error).toContain(`ValueError: BLS request from 'reaching' failed: BLS requests need a server's models: ${none} / the model loading API needs a server's model control: ${none}`);
  });

  it('refuses in model.py what would contradict config.pbtxt, as Triton\'s ModelConfig does', () => {
    const script = [
      'import json, triton_python_backend_utils as pb_utils',
      'def config(**fields):',
      '    return pb_utils.ModelConfig({"name": "m", **fields})',
      'def raised(f):',
      '    try:',
      '        f()',
      '    except ValueError as e:',
      '        return str(e)',
      '    return "did not raise"',
      'ok = config(max_batch_size=8, input=[{"name": "A", "data_type": "TYPE_INVALID", "dims": []}])',
      'ok.add_input({"name": "A", "data_type": "TYPE_FP16", "dims": [3], "optional": True})',
      'ok.set_max_batch_size(16)',
      'ok.set_model_transaction_policy({"decoupled": False})',
      'print(json.dumps({',
      '    "completed": ok.as_dict(),',
      '    "lower_batch": raised(lambda: config(max_batch_size=8).set_max_batch_size(4)),',
      '    "negative_batch": raised(lambda: config().set_max_batch_size(-1)),',
      '    "sequence": raised(lambda: config(sequence_batching={}).set_dynamic_batching()),',
      '    "no_dims": raised(lambda: config().add_output({"name": "B", "data_type": "TYPE_FP32"})),',
      '    "extra": raised(lambda: config().add_output({"name": "B", "data_type": "TYPE_FP32", "dims": [1], "optional": True})),',
      '    "other_dims": raised(lambda: config(output=[{"name": "B", "data_type": "TYPE_FP32", "dims": [2]}]).add_output({"name": "B", "data_type": "TYPE_FP32", "dims": [3]})),',
      '    "optional": raised(lambda: config(input=[{"name": "A", "data_type": "TYPE_FP32", "dims": [1], "optional": True}]).add_input({"name": "A", "data_type": "TYPE_FP32", "dims": [1], "optional": False})),',
      '    "decoupled": raised(lambda: config(model_transaction_policy={"decoupled": True}).set_model_transaction_policy({"decoupled": False})),',
      '    "policy_key": raised(lambda: config().set_model_transaction_policy({"streaming": True})),',
      '}))',
    ].join('\n');
    const out = JSON.parse(execFileSync('python3', ['-c', script], { env: { ...process.env, PYTHONPATH: path.join(repoRoot, 'python') } }).toString());
    expect(out).toEqual({
      completed: { name: 'm', max_batch_size: 16, input: [{ name: 'A', data_type: 'TYPE_FP16', dims: [3], optional: true }], output: [], model_transaction_policy: { decoupled: false } },
      lower_batch: "auto_complete_config() of model 'm' sets max_batch_size 4, below the 8 config.pbtxt sets",
      negative_batch: "auto_complete_config() of model 'm': max_batch_size must be an integer of 0 or more, got -1",
      sequence: "auto_complete_config() of model 'm' asks for dynamic_batching, but config.pbtxt sets sequence_batching",
      no_dims: "auto_complete_config() of model 'm': output 'B' has no 'dims'",
      extra: "auto_complete_config() of model 'm': output 'B' has 'optional'; an output takes only name, data_type, dims",
      other_dims: "auto_complete_config() of model 'm': output 'B' has dims [3], but config.pbtxt declares [2]",
      optional: "auto_complete_config() of model 'm': input 'A' has optional False, but config.pbtxt declares True",
      decoupled: "auto_complete_config() of model 'm' sets decoupled False, but config.pbtxt sets True",
      policy_key: "auto_complete_config() of model 'm': set_model_transaction_policy() takes a dict with 'decoupled' only",
    });
  });

  it('runs no extra process for a complete config whose model.py has no auto_complete_config', async () => {
    expect((await infer('complete')).status).toBe(200);
    expect(readFileSync(path.join(server.repo, 'complete', 'imports'), 'utf8')).toBe('imported\n');
  });

  it('runs no auto_complete_config with Triton\'s --disable-auto-complete-config: config.pbtxt is used as written', async () => {
    server.manager.autoCompleteConfig = false;
    try {
      const reload = await postJson(`${server.http}/v2/repository/models/minimal/load`, {});
      const config = await getJson(`${server.http}/v2/models/minimal/config`);
      expect(reload.status).toBe(200);
      // config.pbtxt names only the backend: no inputs, outputs or batching, as model.py would have added.
      expect(config.body).toEqual({ name: 'minimal', backend: 'python' });
    } finally {
      server.manager.autoCompleteConfig = true;
    }
  });
});
