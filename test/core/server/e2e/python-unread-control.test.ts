/**
 * A Python model whose process stops reading gebe's messages while they keep coming (here: it asks
 * a decoupled model for a stream of big responses through BLS, then stops itself) is ended once
 * the unread bytes pass their bound, instead of the server holding all it sends; its request fails
 * naming why, and a new process serves the next one. Real Python, a real server.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_UNREAD_CONTROL_BYTES } from '../../../../src/core/python-backend/control-channel.js';
import { pythonForTests } from '../../../helpers/python-env.js';
import { postJson } from '../helpers/http-client.js';
import { startRealServer, type RealServer } from './helpers.js';

const python = pythonForTests();

const MODELS: Record<string, { config: string[]; source: string }> = {
  // Streams 40 responses of 2.5 MB each (each alone within a control message's bound).
  flood: {
    config: ['model_transaction_policy { decoupled: true }', 'output [ { name: "OUT" data_type: TYPE_INT32 dims: [ -1 ] } ]'],
    source: `
import numpy as np
import triton_python_backend_utils as pb_utils

class TritonPythonModel:
    def execute(self, requests):
        for r in requests:
            sender = r.get_response_sender()
            for i in range(40):
                sender.send(pb_utils.InferenceResponse([pb_utils.Tensor("OUT", np.full(625_000, i, np.int32))]))
            sender.send(flags=pb_utils.TRITONSERVER_RESPONSE_COMPLETE_FINAL)
`,
  },
  // IN [1]: asks flood for its stream, then stops (SIGSTOP) without reading it; IN [0]: answers 0.
  stops_reading: {
    config: ['output [ { name: "OUT" data_type: TYPE_INT32 dims: [ -1 ] } ]'],
    source: `
import os, signal
import numpy as np
import triton_python_backend_utils as pb_utils

class TritonPythonModel:
    def execute(self, requests):
        if int(pb_utils.get_input_tensor_by_name(requests[0], "IN").as_numpy()[0]) == 1:
            stream = pb_utils.InferenceRequest(model_name="flood", inputs=[pb_utils.Tensor("IN", np.array([0], np.int32))], requested_output_names=["OUT"]).exec(decoupled=True)
            os.kill(os.getpid(), signal.SIGSTOP)
        return [pb_utils.InferenceResponse([pb_utils.Tensor("OUT", np.array([0], np.int32))]) for _ in requests]
`,
  },
};

let server: RealServer;

const infer = (value: number) => postJson(`${server.http}/v2/models/stops_reading/infer`, { inputs: [{ name: 'IN', datatype: 'INT32', shape: [1], data: [value] }] });

describe.skipIf(!python.available)('a Python model that stops reading its control pipe', () => {
  beforeAll(async () => {
    const repo = mkdtempSync(path.join(os.tmpdir(), 'gebe-unread-control-'));
    for (const [name, m] of Object.entries(MODELS)) {
      mkdirSync(path.join(repo, name, '1'), { recursive: true });
      writeFileSync(path.join(repo, name, 'config.pbtxt'), [`name: "${name}"`, 'backend: "python"', 'max_batch_size: 0', 'input [ { name: "IN" data_type: TYPE_INT32 dims: [ 1 ] } ]', ...m.config, ''].join('\n'));
      writeFileSync(path.join(repo, name, '1', 'model.py'), m.source);
    }
    server = await startRealServer(repo);
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('is ended past the bound, its request failing with why; a new process answers the next', async () => {
    const stopped = await infer(1);
    expect(stopped.status).toBe(500);
    expect(stopped.body.error).toMatch(new RegExp(`it broke the control protocol \\(it left \\d+ bytes of gebe's messages unread, more than the ${MAX_UNREAD_CONTROL_BYTES} it may\\)`));
    const next = await infer(0);
    expect([next.status, next.body.outputs?.[0]?.data]).toEqual([200, [0]]);
  });
});
