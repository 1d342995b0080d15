/**
 * Python-backend models with sequence_batching, as Triton runs them: model.py keeps the state per
 * request.correlation_id() and reads request.flags() (START, END); gebe binds each sequence to one
 * instance, runs its requests there in order, one per execute() call, and refuses what Triton's
 * sequence batcher refuses (no id, no START, after END, after the idle timeout), in its words.
 * Real Python (two instances), a real server, concurrent sequences with number and string ids.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pythonForTests } from '../../../helpers/python-env.js';
import { postJson } from '../helpers/http-client.js';
import { grpcClient, streamInfer, streamInt32 } from '../helpers/grpc-client.js';
import { startRealServer, type RealServer } from './helpers.js';

const python = pythonForTests();

// acc holds an idle sequence 10 s (no test step waits that long between two of its requests, even
// on a loaded machine); brief 0.2 s, for the idle timeout itself.
const CONFIG = (name: string, extra = '', idleUs = 10_000_000) => [
  `name: "${name}"`, 'backend: "python"', 'max_batch_size: 4',
  `sequence_batching { max_sequence_idle_microseconds: ${idleUs} ${extra} }`,
  'input [ { name: "X" data_type: TYPE_INT32 dims: [ 1 ] } ]',
  'output [ { name: "SUM" data_type: TYPE_INT32 dims: [ 1 ] }, { name: "PID" data_type: TYPE_INT64 dims: [ 1 ] }, { name: "BATCH" data_type: TYPE_INT32 dims: [ 1 ] } ]',
  'instance_group [ { kind: KIND_CPU count: 2 } ]', '',
].join('\n');

// A running sum per sequence; refuses (raises) a batch holding two requests of one sequence. A
// START takes 0.2 s (one of X 999, 1.5 s), so the steps a client sends behind it wait together.
const MODEL = [
  'import os, time', 'import numpy as np', 'import triton_python_backend_utils as pb_utils',
  'START, END = pb_utils.TRITONSERVER_REQUEST_FLAG_SEQUENCE_START, pb_utils.TRITONSERVER_REQUEST_FLAG_SEQUENCE_END',
  'class TritonPythonModel:',
  '    def initialize(self, args):',
  '        self.sums = {}',
  '    def execute(self, requests):',
  '        ids = [r.correlation_id() for r in requests]',
  '        assert len(set(ids)) == len(ids), f"two requests of one sequence in a batch: {ids}"',
  '        out = []',
  '        for r in requests:',
  '            cid = r.correlation_id()',
  '            if r.flags() & START:',
  '                self.sums[cid] = 0',
  '                time.sleep(1.5 if int(pb_utils.get_input_tensor_by_name(r, "X").as_numpy()[0, 0]) == 999 else 0.2)',
  '            self.sums[cid] += int(pb_utils.get_input_tensor_by_name(r, "X").as_numpy()[0, 0])',
  '            total = self.sums[cid]',
  '            if r.flags() & END:',
  '                del self.sums[cid]',
  '            out.append(pb_utils.InferenceResponse([',
  '                pb_utils.Tensor("SUM", np.array([[total]], np.int32)), pb_utils.Tensor("PID", np.array([[os.getpid()]], np.int64)),',
  '                pb_utils.Tensor("BATCH", np.array([[len(requests)]], np.int32))]))',
  '        return out',
  '',
].join('\n');

// Drives acc through BLS, as a Python model orchestrating a stateful one does: N steps of one
// sequence (its id the request's id, a number when it reads as one; START on the first, END on the
// last) answer acc's last SUM; N 0 sends one step without START. Then asks meta, with parameters,
// a timeout and no sequence, and answers what meta saw (META).
const DRIVER = [
  'import json', 'import numpy as np', 'import triton_python_backend_utils as pb_utils',
  'START, END = pb_utils.TRITONSERVER_REQUEST_FLAG_SEQUENCE_START, pb_utils.TRITONSERVER_REQUEST_FLAG_SEQUENCE_END',
  'def refusals():',
  '    said = []',
  '    for options in [{"flags": 8}, {"parameters": "[1, 2]"}, {"parameters": {"temperature": 0.5}}, {"correlation_id": -1}, {"timeout": -5}]:',
  '        try:',
  '            reply = pb_utils.InferenceRequest(model_name="meta", inputs=[pb_utils.Tensor("N", np.array([0], np.int32))], **options).exec()',
  '            said.append(reply.error().message() if reply.has_error() else "answered")',
  '        except pb_utils.TritonModelException as e:',
  '            said.append(str(e))',
  '    return said',
  'class TritonPythonModel:',
  '    def execute(self, requests):',
  '        out = []',
  '        for r in requests:',
  '            n = int(pb_utils.get_input_tensor_by_name(r, "N").as_numpy()[0])',
  '            if n < 0:  # what a BLS request may not carry: each refusal\'s words',
  '                out.append(pb_utils.InferenceResponse([pb_utils.Tensor("SUM", np.array([0], np.int32)), pb_utils.Tensor("META", np.array([json.dumps(refusals()).encode()], dtype=np.object_))]))',
  '                continue',
  '            cid = int(r.request_id()) if r.request_id().isdigit() else r.request_id()',
  '            total = 0',
  '            for i in range(max(n, 1)):',
  '                flags = (START if i == 0 and n > 0 else 0) | (END if i == n - 1 else 0)',
  '                step = pb_utils.InferenceRequest(model_name="acc", inputs=[pb_utils.Tensor("X", np.array([[i + 1]], np.int32))],',
  '                                                 requested_output_names=["SUM"], correlation_id=cid, flags=flags).exec()',
  '                if step.has_error():',
  '                    raise pb_utils.TritonModelException(step.error().message())',
  '                total = int(pb_utils.get_output_tensor_by_name(step, "SUM").as_numpy()[0, 0])',
  '            meta = pb_utils.InferenceRequest(model_name="meta", inputs=[pb_utils.Tensor("N", np.array([n], np.int32))], requested_output_names=["META"],',
  '                                             parameters={"mode": "fast", "top_k": 5, "stream": True}, timeout=250000).exec()',
  '            out.append(pb_utils.InferenceResponse([pb_utils.Tensor("SUM", np.array([total], np.int32)), pb_utils.get_output_tensor_by_name(meta, "META")]))',
  '        return out',
  '',
].join('\n');

const META = [
  'import json', 'import numpy as np', 'import triton_python_backend_utils as pb_utils',
  'class TritonPythonModel:',
  '    def execute(self, requests):',
  '        return [pb_utils.InferenceResponse([pb_utils.Tensor("META", np.array([json.dumps({"parameters": json.loads(r.parameters()), "timeout": r.timeout(),',
  '                 "correlation_id": r.correlation_id(), "flags": r.flags()}).encode()], dtype=np.object_))]) for r in requests]',
  '',
].join('\n');

let server: RealServer;

interface Step { sum?: number; pid?: number; batch?: number; error?: string }

async function step(model: string, parameters: Record<string, unknown>, x: number): Promise<Step> {
  const res = await postJson(`${server.http}/v2/models/${model}/infer`, { parameters, inputs: [{ name: 'X', datatype: 'INT32', shape: [1, 1], data: [x] }] });
  if (res.status !== 200) return { error: `${res.status} ${res.body.error}` };
  const value = (name: string) => (res.body.outputs as Array<{ name: string; data: number[] }>).find((o) => o.name === name)!.data[0]!;
  return { sum: value('SUM'), pid: value('PID'), batch: value('BATCH') };
}

describe.skipIf(!python.available)('Python models with sequence_batching', () => {
  beforeAll(async () => {
    const repo = mkdtempSync(path.join(os.tmpdir(), 'gebe-python-sequences-'));
    const model = (name: string, config: string) => {
      mkdirSync(path.join(repo, name, '1'), { recursive: true });
      writeFileSync(path.join(repo, name, 'config.pbtxt'), config);
      writeFileSync(path.join(repo, name, '1', 'model.py'), MODEL);
    };
    model('acc', CONFIG('acc'));
    model('brief', CONFIG('brief', '', 200_000));
    model('controlled', CONFIG('controlled', 'control_input [ { name: "START" control [ { kind: CONTROL_SEQUENCE_START int32_false_true: [ 0, 1 ] } ] } ]'));
    for (const [name, source, outputs] of [['driver', DRIVER, '{ name: "SUM" data_type: TYPE_INT32 dims: [ 1 ] }, { name: "META" data_type: TYPE_STRING dims: [ 1 ] }'], ['meta', META, '{ name: "META" data_type: TYPE_STRING dims: [ 1 ] }']]) {
      mkdirSync(path.join(repo, name!, '1'), { recursive: true });
      writeFileSync(path.join(repo, name!, 'config.pbtxt'), `name: "${name}"\nbackend: "python"\nmax_batch_size: 0\ninput [ { name: "N" data_type: TYPE_INT32 dims: [ 1 ] } ]\noutput [ ${outputs} ]\n`);
      writeFileSync(path.join(repo, name!, '1', 'model.py'), source!);
    }
    server = await startRealServer(repo, 'explicit', ['acc', 'brief', 'driver', 'meta']);
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('keeps each sequence on one instance, in order, its sums its own, with concurrent sequences batched', async () => {
    const ids: Array<number | string> = [1, 2, 3, 'alpha', 'beta', 6, 7, 'eta'];
    const runs = await Promise.all(ids.map(async (id, k) => {
      const steps: Step[] = [];
      for (let i = 0; i < 6; i++) {
        steps.push(await step('acc', { sequence_id: id, sequence_start: i === 0, sequence_end: i === 5 }, k + 1));
      }
      return steps;
    }));
    runs.forEach((steps, k) => {
      expect(steps.map((s) => s.error ?? s.sum)).toEqual([1, 2, 3, 4, 5, 6].map((i) => i * (k + 1)));
      expect(new Set(steps.map((s) => s.pid)).size).toBe(1);  // one instance held the sequence
    });
    expect(new Set(runs.map((steps) => steps[0]!.pid)).size).toBe(2);  // both instances held sequences
    const batches = runs.flat().map((s) => s.batch!);
    expect(Math.max(...batches)).toBeLessThanOrEqual(4);
  });

  it('runs the steps a client sends without waiting (one gRPC stream) in order, one per execute()', async () => {
    const client = grpcClient(server.grpc);
    try {
      const request = (id: string, seq: string, i: number, x: number) => ({
        model_name: 'acc', id,
        parameters: { sequence_id: { string_param: seq }, sequence_start: { bool_param: i === 0 }, sequence_end: { bool_param: i === 4 } },
        inputs: [{ name: 'X', datatype: 'INT32', shape: [1, 1] }], raw_input_contents: [Buffer.from(new Int32Array([x]).buffer)],
      });
      const requests = [0, 1, 2, 3, 4].flatMap((i) => [request(`p${i}`, 'piped', i, i + 1), request(`q${i}`, 'queued', i, 10)]);
      const answers = await streamInfer(client, requests);
      const sum = (id: string) => {
        const a = answers.find((r) => r.infer_response.id === id)!;
        expect(a.error_message).toBe('');
        return streamInt32(a, 'SUM');
      };
      expect([0, 1, 2, 3, 4].map((i) => sum(`p${i}`))).toEqual([1, 3, 6, 10, 15]);
      expect([0, 1, 2, 3, 4].map((i) => sum(`q${i}`))).toEqual([10, 20, 30, 40, 50]);
    } finally {
      client.close();
    }
  });

  it('refuses a step past the native batcher\'s bound of waiting requests a sequence (1024), and runs the rest', async () => {
    const client = grpcClient(server.grpc);
    try {
      const request = (i: number) => ({
        model_name: 'acc', id: `m${i}`,
        parameters: { sequence_id: { string_param: 'many' }, sequence_start: { bool_param: i === 0 }, sequence_end: { bool_param: i === 1025 } },
        inputs: [{ name: 'X', datatype: 'INT32', shape: [1, 1] }], raw_input_contents: [Buffer.from(new Int32Array([i === 0 ? 999 : 1]).buffer)],
      });
      const answers = await streamInfer(client, Array.from({ length: 1026 }, (_, i) => request(i)));
      const refused = answers.filter((a) => a.error_message !== '');
      expect(refused.map((a) => a.error_message)).toEqual(["sequence many of model 'acc' already has 1024 requests waiting; wait for answers before sending more"]);
      expect(refused[0].infer_response.id).toBe('m1025');
      const last = answers.find((a) => a.infer_response.id === 'm1024')!;
      expect(Buffer.from(last.infer_response.raw_output_contents[0]).readInt32LE(0)).toBe(999 + 1024);
    } finally {
      client.close();
    }
    // Its END was the refused step: a START takes the id again, from a fresh sum.
    expect((await step('acc', { sequence_id: 'many', sequence_start: true, sequence_end: true }, 4)).sum).toBe(4);
  });

  it('refuses a request without an id, one that continues a sequence it does not hold, and one after END or the idle timeout', async () => {
    const missingId = "400 inference request to model 'acc' must specify a non-zero or non-empty correlation ID (request parameter sequence_id)";
    const noStart = (id: string) => `400 inference request for sequence ${id} to model 'acc' must specify the START flag on the first request of the sequence`;
    expect((await step('acc', {}, 1)).error).toBe(missingId);
    expect((await step('acc', { sequence_id: 0 }, 1)).error).toBe(missingId);
    expect((await step('acc', { sequence_id: 41 }, 1)).error).toBe(noStart('41'));
    expect((await step('acc', { sequence_id: 42, sequence_start: true, sequence_end: true }, 5)).sum).toBe(5);
    expect((await step('acc', { sequence_id: 42 }, 1)).error).toBe(noStart('42'));
    // brief lets a sequence go after 0.2 s without a request.
    expect((await step('brief', { sequence_id: 'idle', sequence_start: true }, 3)).sum).toBe(3);
    await new Promise((r) => setTimeout(r, 600));
    expect((await step('brief', { sequence_id: 'idle' }, 3)).error).toBe(noStart('idle').replace("'acc'", "'brief'"));
    // A new START takes the id again, from a fresh sum.
    expect((await step('brief', { sequence_id: 'idle', sequence_start: true }, 2)).sum).toBe(2);
  });

  it('takes a sequence\'s steps, parameters and a timeout from BLS requests, as Triton\'s BLS carries them', async () => {
    const drive = async (id: string, n: number) => {
      const res = await postJson(`${server.http}/v2/models/driver/infer`, { id, inputs: [{ name: 'N', datatype: 'INT32', shape: [1], data: [n] }] });
      if (res.status !== 200) return `${res.status} ${res.body.error}`;
      const output = (name: string) => (res.body.outputs as Array<{ name: string; data: unknown[] }>).find((o) => o.name === name)!.data[0];
      return { sum: output('SUM'), meta: JSON.parse(output('META') as string) };
    };
    const [byString, byNumber] = await Promise.all([drive('bls-seq', 4), drive('77', 3)]);
    expect(byString).toEqual({ sum: 10, meta: { parameters: { mode: 'fast', top_k: 5, stream: true }, timeout: 250000, correlation_id: 0, flags: 0 } });
    expect(byNumber).toMatchObject({ sum: 6 });
    const refused = await drive('r', -1);
    expect(typeof refused === 'string' ? refused : refused.meta).toEqual([
      "BLS request from 'driver' failed: flags 8 are not a combination of TRITONSERVER_REQUEST_FLAG_SEQUENCE_START (1) and TRITONSERVER_REQUEST_FLAG_SEQUENCE_END (2)",
      "BLS request from 'driver' failed: the BLS request's parameters are not a JSON object",
      'Expect parameters values to have type bool/int/str, found type float',
      "a BLS request's correlation_id must be an unsigned 64-bit integer or a string, not -1",
      "BLS request from 'driver' failed: timeout -5 is not a number of microseconds",
    ]);
    // A step without START, for an id acc does not hold: refused in the sequence batcher's words.
    expect(await drive('78', 0)).toMatch(/^500 .*inference request for sequence 78 to model 'acc' must specify the START flag on the first request of the sequence/);
  });

  it('refuses to load control inputs, which only the native core fills', async () => {
    const res = await postJson(`${server.http}/v2/repository/models/controlled/load`, {});
    expect(res.status).toBe(400);
    expect(res.body.error).toContain("model 'controlled': sequence_batching.control_input is not filled for Python-backend models by gebe");
  });
});
