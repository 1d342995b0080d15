/**
 * Triton's model loading API for Python models (pb_utils.load_model, unload_model, is_model_ready)
 * in a real server with a real Python: model.py loads another model with a config of its own,
 * unloads it, and gets the repository API's refusals (a bad config, files inline, itself; outside
 * explicit model control mode) in the repository API's words.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ControlMode } from '../../../../src/core/server/model-manager.js';
import { pythonForTests } from '../../../helpers/python-env.js';
import { postJson } from '../helpers/http-client.js';
import { startRealServer, type RealServer } from './helpers.js';

const python = pythonForTests();

const CONFIG = (name: string) => [
  `name: "${name}"`, 'backend: "python"', 'max_batch_size: 0',
  'input [ { name: "IN" data_type: TYPE_INT32 dims: [ 1 ] } ]', 'output [ { name: "OUT" data_type: TYPE_STRING dims: [ 1 ] } ]', '',
].join('\n');

// Runs the model loading API on "target" and answers, as JSON, what each step saw.
const LOADER = `
import json
import numpy as np
import triton_python_backend_utils as pb_utils

def attempt(fn):
    try:
        return fn()
    except pb_utils.TritonModelException as e:
        return "refused: " + str(e)

class TritonPythonModel:
    def execute(self, requests):
        seen = {"ready_before": pb_utils.is_model_ready("target"), "unknown_ready": pb_utils.is_model_ready("nope")}
        config = json.dumps({"name": "target", "backend": "python", "max_batch_size": 0,
                             "input": [{"name": "IN", "data_type": "TYPE_INT32", "dims": [1]}],
                             "output": [{"name": "OUT", "data_type": "TYPE_STRING", "dims": [1]}],
                             "parameters": {"greeting": {"string_value": "hello from the loader"}}})
        seen["load"] = attempt(lambda: pb_utils.load_model("target", config=config))
        seen["ready_after"] = pb_utils.is_model_ready("target", "1")
        said = pb_utils.InferenceRequest(model_name="target", inputs=[pb_utils.Tensor("IN", np.array([1], np.int32))], requested_output_names=["OUT"]).exec()
        seen["said"] = said.error().message() if said.has_error() else pb_utils.get_output_tensor_by_name(said, "OUT").as_numpy()[0].decode()
        seen["bad_config"] = attempt(lambda: pb_utils.load_model("target", config="{not json"))
        seen["files"] = attempt(lambda: pb_utils.load_model("target", files={"file:1/model.py": b"print(1)"}))
        seen["itself"] = attempt(lambda: pb_utils.unload_model("loader"))
        seen["unload"] = attempt(lambda: pb_utils.unload_model("target"))
        seen["ready_unloaded"] = pb_utils.is_model_ready("target")
        return [pb_utils.InferenceResponse([pb_utils.Tensor("OUT", np.array([json.dumps(seen).encode()], dtype=np.object_))]) for _ in requests]
`;

// Answers its config's "greeting" parameter (the loader's config replaces config.pbtxt's).
const TARGET = `
import json
import numpy as np
import triton_python_backend_utils as pb_utils

class TritonPythonModel:
    def initialize(self, args):
        parameters = json.loads(args["model_config"]).get("parameters", {})
        self.greeting = parameters.get("greeting", {}).get("string_value", "config.pbtxt's")
    def execute(self, requests):
        return [pb_utils.InferenceResponse([pb_utils.Tensor("OUT", np.array([self.greeting.encode()], dtype=np.object_))]) for _ in requests]
`;

let server: RealServer | undefined;

async function serve(mode: ControlMode, load: string[]): Promise<RealServer> {
  const repo = mkdtempSync(path.join(os.tmpdir(), 'gebe-python-loading-'));
  for (const [name, source] of [['loader', LOADER], ['target', TARGET]] as const) {
    mkdirSync(path.join(repo, name, '1'), { recursive: true });
    writeFileSync(path.join(repo, name, 'config.pbtxt'), CONFIG(name));
    writeFileSync(path.join(repo, name, '1', 'model.py'), source);
  }
  server = await startRealServer(repo, mode, load);
  return server;
}

async function runLoader(s: RealServer): Promise<Record<string, unknown>> {
  const res = await postJson(`${s.http}/v2/models/loader/infer`, { inputs: [{ name: 'IN', datatype: 'INT32', shape: [1], data: [0] }] });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return JSON.parse(res.body.outputs[0].data[0]);
}

afterEach(async () => {
  await server?.stop();
  server = undefined;
});

describe.skipIf(!python.available)('the model loading API of Python models', () => {
  it('loads another model with a config of its own, unloads it, and refuses what the repository API refuses', async () => {
    const s = await serve('explicit', ['loader']);
    expect(await runLoader(s)).toEqual({
      ready_before: false,
      unknown_ready: false,
      load: null,
      ready_after: true,
      said: 'hello from the loader',
      bad_config: expect.stringMatching(/^refused: .*'target'.*JSON/),
      files: "refused: load parameter 'file:1/model.py' for 'target': gebe does not accept model files inline; put the file into the model's directory in the repository and load again",
      itself: "refused: model 'loader' cannot unload itself",
      unload: null,
      ready_unloaded: false,
    });
  });

  it('is refused outside explicit model control mode, as the repository API is', async () => {
    const s = await serve('none', []);
    const seen = await runLoader(s);
    expect(seen.load).toBe('refused: explicit model load is not allowed if polling is enabled or model control is off (start the server with --model-control-mode explicit)');
    expect(seen.unload).toBe('refused: explicit model unload is not allowed if polling is enabled or model control is off (start the server with --model-control-mode explicit)');
    expect(seen.ready_before).toBe(true);
  });
});
