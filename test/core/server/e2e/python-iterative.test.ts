/**
 * Iterative sequences of Python models (sequence_batching { iterative_sequence: true }), as
 * Triton's iterative sequencer runs them: a request with no sequence id is a sequence of its own
 * (its first run flagged START, later runs not); model.py reschedules it
 * (request.set_release_flags(TRITONSERVER_REQUEST_RELEASE_RESCHEDULE)) and it runs again in a
 * later execute(), batched with other requests' steps (continuous batching), until model.py lets it
 * go. Real Python, a real server; gRPC streams, generate_stream and HTTP infer.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pythonForTests } from '../../../helpers/python-env.js';
import { grpcClient, streamInfer, streamInt32, type GrpcClient } from '../helpers/grpc-client.js';
import { postJson } from '../helpers/http-client.js';
import { startRealServer, type RealServer } from './helpers.js';

const python = pythonForTests();

const CONFIG = (name: string, extra: string[]) => [
  `name: "${name}"`, 'backend: "python"', 'max_batch_size: 4', 'sequence_batching { iterative_sequence: true }', ...extra,
  'input [ { name: "IN" data_type: TYPE_INT32 dims: [ 1 ] } ]',
  'output [ { name: "OUT" data_type: TYPE_INT32 dims: [ 1 ] }, { name: "BATCH" data_type: TYPE_INT32 dims: [ 1 ] }, { name: "FLAGS" data_type: TYPE_INT32 dims: [ 1 ] } ]', '',
].join('\n');

const HEADER = [
  'import time',
  'import numpy as np',
  'import triton_python_backend_utils as pb_utils',
  'RESCHEDULE, FINAL = pb_utils.TRITONSERVER_REQUEST_RELEASE_RESCHEDULE, pb_utils.TRITONSERVER_RESPONSE_COMPLETE_FINAL',
  'def tensors(n, batch, flags):',
  '    return [pb_utils.Tensor(k, np.array([[v]], np.int32)) for k, v in (("OUT", n), ("BATCH", batch), ("FLAGS", flags))]',
  'class TritonPythonModel:',
  '    def initialize(self, args):',
  '        self.left = {}',
];

const MODELS: Record<string, { config: string[]; body: string[] }> = {
  // Decoupled: IN n sends n responses, n-1 down to 0, one a run (each run 20 ms, so the requests a
  // client sends together share runs); the last with the final flag.
  countdown: {
    config: ['model_transaction_policy { decoupled: true }'],
    body: [
      '    def execute(self, requests):',
      '        time.sleep(0.02)',
      '        for r in requests:',
      '            cid = r.correlation_id()',
      '            self.left.setdefault(cid, int(pb_utils.get_input_tensor_by_name(r, "IN").as_numpy()[0, 0]))',
      '            self.left[cid] -= 1',
      '            n = self.left[cid]',
      '            response = pb_utils.InferenceResponse(tensors(n, len(requests), r.flags()))',
      '            if n > 0:',
      '                r.get_response_sender().send(response)',
      '                r.set_release_flags(RESCHEDULE)',
      '            else:',
      '                del self.left[cid]',
      '                r.get_response_sender().send(response, FINAL)',
    ],
  },
  // Not decoupled: IN n runs n times (None returned for the rescheduled runs) and answers n; IN -1
  // answers a response for a rescheduled request, which Triton refuses.
  accumulate: {
    config: [],
    body: [
      '    def execute(self, requests):',
      '        out = []',
      '        for r in requests:',
      '            cid = r.correlation_id()',
      '            want = int(pb_utils.get_input_tensor_by_name(r, "IN").as_numpy()[0, 0])',
      '            runs = self.left.get(cid, 0) + 1',
      '            if want == -1:',
      '                r.set_release_flags(RESCHEDULE)',
      '                out.append(pb_utils.InferenceResponse(tensors(0, 0, 0)))',
      '            elif runs < want:',
      '                self.left[cid] = runs',
      '                r.set_release_flags(RESCHEDULE)',
      '                out.append(None)',
      '            else:',
      '                self.left.pop(cid, None)',
      '                out.append(pb_utils.InferenceResponse(tensors(runs, len(requests), r.flags())))',
      '        return out',
    ],
  },
};

let server: RealServer;
let grpc: GrpcClient;

const request = (model: string, id: string, n: number) => ({
  model_name: model, id, inputs: [{ name: 'IN', datatype: 'INT32', shape: [1, 1] }], raw_input_contents: [Buffer.from(new Int32Array([n]).buffer)],
});
const int32 = streamInt32;

describe.skipIf(!python.available)('iterative sequences of Python models', () => {
  beforeAll(async () => {
    const repo = mkdtempSync(path.join(os.tmpdir(), 'gebe-iterative-'));
    for (const [name, m] of Object.entries(MODELS)) {
      mkdirSync(path.join(repo, name, '1'), { recursive: true });
      writeFileSync(path.join(repo, name, 'config.pbtxt'), CONFIG(name, m.config));
      writeFileSync(path.join(repo, name, '1', 'model.py'), [...HEADER, ...m.body, ''].join('\n'));
    }
    server = await startRealServer(repo);
    grpc = grpcClient(server.grpc);
  });
  afterAll(async () => {
    grpc?.close();
    await server?.stop();
  });

  it('runs each request again while model.py reschedules it, its steps batched with other requests\' (continuous batching)', async () => {
    const answers = await streamInfer(grpc, [request('countdown', 'a', 3), request('countdown', 'b', 5), request('countdown', 'c', 2)]);
    const of = (id: string) => answers.filter((a) => a.infer_response.id === id);
    expect(answers.every((a) => a.error_message === '')).toBe(true);
    expect(of('a').map((a) => int32(a, 'OUT'))).toEqual([2, 1, 0]);
    expect(of('b').map((a) => int32(a, 'OUT'))).toEqual([4, 3, 2, 1, 0]);
    expect(of('c').map((a) => int32(a, 'OUT'))).toEqual([1, 0]);
    // The first run of each is its sequence's START; the runs after it carry no flags.
    for (const id of ['a', 'b', 'c']) expect(of(id).map((a) => int32(a, 'FLAGS'))).toEqual(of(id).map((_, i) => (i === 0 ? 1 : 0)));
    expect(Math.max(...answers.map((a) => int32(a, 'BATCH')))).toBeGreaterThan(1);
    expect(server.manager.resolve('countdown').pendingCount()).toBe(0);
  });

  it('streams a request with no sequence parameters over generate_stream, as Triton\'s iterative sequence test does', async () => {
    const res = await fetch(`${server.http}/v2/models/countdown/generate_stream`, { method: 'POST', body: JSON.stringify({ IN: 2 }) });
    const events = (await res.text()).split('\n\n').filter(Boolean).map((e) => JSON.parse(e.replace(/^data: /, '')));
    expect(events.map((e) => e.OUT)).toEqual([1, 0]);
  });

  it('answers a model that is not decoupled when it lets the request go, and refuses a response for a rescheduled one', async () => {
    const infer = (n: number) => postJson(`${server.http}/v2/models/accumulate/infer`, { inputs: [{ name: 'IN', datatype: 'INT32', shape: [1, 1], data: [n] }] });
    const [four, one] = await Promise.all([infer(4), infer(1)]);
    const out = (r: { body: { outputs: Array<{ name: string; data: number[] }> } }, name: string) => r.body.outputs.find((o) => o.name === name)!.data[0];
    expect([four.status, out(four, 'OUT'), out(four, 'FLAGS')]).toEqual([200, 4, 0]);
    expect([one.status, out(one, 'OUT'), out(one, 'FLAGS')]).toEqual([200, 1, 1]);
    const refused = await infer(-1);
    expect([refused.status, refused.body.error]).toEqual([500, "triton_python_backend_utils.TritonModelException: Expected a None object in the execute function return list for rescheduled request, found type 'InferenceResponse'"]);
  });

  it('lets go of a rescheduled request whose client went away', async () => {
    const stream = grpc.ModelStreamInfer!();
    stream.on('error', () => undefined);
    const first = new Promise<void>((resolve) => stream.once('data', () => resolve()));
    stream.write(request('countdown', 'long', 100_000));
    await first;
    stream.cancel();
    const model = server.manager.resolve('countdown');
    for (let i = 0; i < 500 && model.pendingCount() > 0; i++) await new Promise((r) => setTimeout(r, 10));
    expect(model.pendingCount()).toBe(0);
  });
});
