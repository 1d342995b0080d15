/**
 * Decoupled Python-backend models (model_transaction_policy { decoupled: true }) served by a real
 * server with a real Python: each request's responses, sent through its response sender from
 * execute() or from a thread after execute() returned, reach gRPC ModelStreamInfer clients
 * (grpc-js, on the native front end and on --grpc-use-ssl's, and gRPC's C-core through Python
 * grpcio) with Triton's `triton_final_response` flag;
 * errors travel in band; a client that goes away is seen by model.py's is_cancelled(); HTTP infer
 * and gRPC ModelInfer refuse the model in Triton's words.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import * as grpcJs from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeGrpcInferRequest, GrpcModelEndpoint, GrpcStreamInferClient } from '../../../../src/core/kserve/client/grpc.js';
import { grpcRoot } from '../../../../src/core/kserve/grpc-proto.js';
import { silentLogger } from '../../../../src/core/server/logger.js';
import type { NativeHttpFrontend } from '../../../../src/core/server/http/native-frontend.js';
import { GebeServer } from '../../../../src/core/server/server.js';
import { makeTestCertificates } from '../helpers/tls-certs.js';
import { call, callError, grpcClient, streamInfer, streamInt32, type GrpcClient } from '../helpers/grpc-client.js';
import { getJson, postJson } from '../helpers/http-client.js';
import { pythonForTests } from '../../../helpers/python-env.js';
import { perRequestModelPy, startRealServer, writeParametersModel, type RealServer } from './helpers.js';
import { runGebe } from '../../../helpers/gebe-cli.js';

const python = pythonForTests();

const CONFIG = (name: string) => [
  `name: "${name}"`, 'backend: "python"', 'max_batch_size: 0',
  'model_transaction_policy { decoupled: true }',
  'input [ { name: "IN" data_type: TYPE_INT32 dims: [ -1 ] } ]',
  'output [ { name: "OUT" data_type: TYPE_INT32 dims: [ 1 ] }, { name: "IDX" data_type: TYPE_UINT32 dims: [ 1 ] } ]', '',
].join('\n');

const HEADER = [
  'import threading, os',
  'import numpy as np',
  'import triton_python_backend_utils as pb_utils',
  'FINAL = pb_utils.TRITONSERVER_RESPONSE_COMPLETE_FINAL',
  'def values(request):',
  '    return pb_utils.get_input_tensor_by_name(request, "IN").as_numpy().tolist()',
  'def response(v, i):',
  '    return pb_utils.InferenceResponse([pb_utils.Tensor("OUT", np.array([v], np.int32)), pb_utils.Tensor("IDX", np.array([i], np.uint32))])',
  'class TritonPythonModel:',
  '    def initialize(self, args):',
  '        import json',
  '        assert pb_utils.using_decoupled_model_transaction_policy(json.loads(args["model_config"]))',
  '        self.dir = args["model_repository"]',
];

/** model.py bodies: execute(self, requests) of each model. */
const MODELS: Record<string, string[]> = {
  // One response per input element, then the final flag alone.
  repeat: [
    '    def execute(self, requests):',
    '        for r in requests:',
    '            sender = r.get_response_sender()',
    '            for i, v in enumerate(values(r)):',
    '                sender.send(response(v, i))',
    '            sender.send(flags=FINAL)',
  ],
  // Responses from a thread, after execute() returned; the last one carries the final flag.
  threaded: [
    '    def execute(self, requests):',
    '        for r in requests:',
    '            def work(sender=r.get_response_sender(), vs=values(r)):',
    '                for i, v in enumerate(vs):',
    '                    sender.send(response(v * 10, i), FINAL if i == len(vs) - 1 else 0)',
    '            threading.Thread(target=work).start()',
  ],
  // A good response, an error response (the request goes on), then the final flag.
  errors: [
    '    def execute(self, requests):',
    '        for r in requests:',
    '            sender = r.get_response_sender()',
    '            sender.send(response(1, 0))',
    '            sender.send(pb_utils.InferenceResponse(error=pb_utils.TritonError("step 2 failed", pb_utils.TritonError.INVALID_ARG)))',
    '            sender.send(flags=FINAL)',
    '            try:',
    '                sender.send(flags=FINAL)',
    '            except pb_utils.TritonModelException as e:',
    '                pb_utils.Logger.log_info(f"second final refused: {e}")',
  ],
  // One response, then execute() raises: the request ends with the error.
  raises: [
    '    def execute(self, requests):',
    '        requests[0].get_response_sender().send(response(7, 0))',
    '        raise ValueError("broke after one response")',
  ],
  // A response too big for a control message: send() raises in model.py, which answers the error.
  big: [
    '    def execute(self, requests):',
    '        sender = requests[0].get_response_sender()',
    '        try:',
    '            sender.send(pb_utils.InferenceResponse([pb_utils.Tensor("OUT", np.zeros(2_000_000, np.int32))]))',
    '        except pb_utils.TritonModelException as e:',
    '            sender.send(pb_utils.InferenceResponse(error=pb_utils.TritonError(str(e))), FINAL)',
  ],
  // Streams from a thread until its client goes away, then leaves a file saying so.
  cancellable: [
    '    def execute(self, requests):',
    '        for r in requests:',
    '            def work(sender=r.get_response_sender(), request=r):',
    '                import time',
    '                i = 0',
    '                while not request.is_cancelled() and i < 1000:',
    '                    sender.send(response(i, i))',
    '                    i += 1',
    '                    time.sleep(0.01)',
    '                open(os.path.join(self.dir, ("cancelled-" if sender.is_cancelled() else "finished-") + request.request_id()), "w").close()',
    '                sender.send(flags=FINAL)',
    '            threading.Thread(target=work).start()',
  ],
  // A response at once, the final flag alone a while later.
  slow_final: [
    '    def execute(self, requests):',
    '        for r in requests:',
    '            sender = r.get_response_sender()',
    '            sender.send(response(1, 0))',
    '            def later(sender=sender):',
    '                import time',
    '                time.sleep(0.2)',
    '                sender.send(flags=FINAL)',
    '            threading.Thread(target=later).start()',
  ],
  // async def execute, run on the stub's event loop and not waited for (Triton's async execute of
  // decoupled models): IN [1] waits for an event that a later request, IN [2], sets, which only an
  // execute() running beside the first can do (else IN [1] answers -1 after 20 s).
  async_rendezvous: [
    '    async def execute(self, requests):',
    '        import asyncio',
    '        if not hasattr(self, "met"):',
    '            self.met = asyncio.Event()',
    '        for r in requests:',
    '            v = values(r)[0]',
    '            if v == 2:',
    '                self.met.set()',
    '            else:',
    '                try:',
    '                    await asyncio.wait_for(self.met.wait(), 20)',
    '                except asyncio.TimeoutError:',
    '                    v = -1',
    '            r.get_response_sender().send(response(v, 0), FINAL)',
  ],
  // An async execute() that raises after one response, execute() having returned long before.
  async_raises: [
    '    async def execute(self, requests):',
    '        import asyncio',
    '        requests[0].get_response_sender().send(response(7, 0))',
    '        await asyncio.sleep(0.05)',
    '        raise ValueError("async broke after one response")',
  ],
  // Two responses with parameters (Triton's InferenceResponse(parameters=...)), then the final flag.
  stream_params: [
    '    def execute(self, requests):',
    '        for r in requests:',
    '            sender = r.get_response_sender()',
    '            for i in range(2):',
    '                sender.send(pb_utils.InferenceResponse(response(i, i).output_tensors(), parameters={"index": i, "last": i == 1}))',
    '            sender.send(flags=FINAL)',
  ],
  // The process dies with a request open.
  dies: [
    '    def execute(self, requests):',
    '        requests[0].get_response_sender().send(response(3, 0))',
    '        os._exit(3)',
  ],
};

/** A model.py whose execute() runs `body` for each request `r` (its IN as numpy: `v`), appending its response to `out`. */
const perRequest = (body: string[]): string[] => perRequestModelPy(['v = pb_utils.get_input_tensor_by_name(r, "IN").as_numpy()', ...body], ['import json']);

/** Python models that are not decoupled (config and model.py), for BLS from the decoupled ones. */
const PLAIN: Record<string, string[]> = {
  // OUT = IN * 2, IDX = 0.
  double: perRequest(['out.append(pb_utils.InferenceResponse([pb_utils.Tensor("OUT", (v * 2).astype(np.int32)), pb_utils.Tensor("IDX", np.zeros(v.shape, np.uint32))]))']),
};

// An async execute() (Triton's default mode: waited for) that sends BLS requests side by side
// (async_exec and asyncio.gather, one per element of IN, to double) and answers their sum, plus 100
// when an 8 MB BLS request (beyond what a control message carries) came back doubled, plus 1000
// when the event loop and the task the first call left running are still there (Triton's stub
// keeps one loop for the process's life).
PLAIN.async_loop = [
  'import asyncio',
  'import numpy as np',
  'import triton_python_backend_utils as pb_utils',
  'class TritonPythonModel:',
  '    async def execute(self, requests):',
  '        loop = asyncio.get_running_loop()',
  '        if not hasattr(self, "loop"):',
  '            self.loop = loop',
  '            self.task = loop.create_task(asyncio.sleep(3600))',
  '        kept = 1000 if loop is self.loop and not self.task.done() else 0',
  '        out = []',
  '        for r in requests:',
  '            parts = [pb_utils.InferenceRequest(model_name="double", inputs=[pb_utils.Tensor("IN", np.array([v], np.int32))], requested_output_names=["OUT"])',
  '                     for v in pb_utils.get_input_tensor_by_name(r, "IN").as_numpy().tolist()]',
  '            doubled = await asyncio.gather(*(p.async_exec() for p in parts))',
  '            total = sum(int(pb_utils.get_output_tensor_by_name(d, "OUT").as_numpy()[0]) for d in doubled)',
  '            big = pb_utils.InferenceRequest(model_name="double_any", inputs=[pb_utils.Tensor("IN", np.ones(2_000_000, np.int32))], requested_output_names=["OUT"]).exec()',
  '            assert not big.has_error(), big.error().message()',
  '            total += 100 if int(pb_utils.get_output_tensor_by_name(big, "OUT").as_numpy().sum()) == 4_000_000 else 0',
  '            out.append(pb_utils.InferenceResponse([pb_utils.Tensor("OUT", np.array([kept + total], np.int32)), pb_utils.Tensor("IDX", np.zeros(1, np.uint32))]))',
  '        return out',
];

// Two instances (two processes): a request IN [token, i] leaves a file named token-i and waits up
// to 10 s for the other of its pair, answering how many of the pair's files it saw: 2 when both
// requests were in flight at once, 1 for the first of two sent one after the other.
PLAIN.pair_count = [
  'import os, time',
  'import numpy as np',
  'import triton_python_backend_utils as pb_utils',
  'class TritonPythonModel:',
  '    def initialize(self, args):',
  '        self.dir = os.path.join(args["model_repository"], "arrivals")',
  '        os.makedirs(self.dir, exist_ok=True)',
  '    def execute(self, requests):',
  '        out = []',
  '        for r in requests:',
  '            token, i = pb_utils.get_input_tensor_by_name(r, "IN").as_numpy().tolist()',
  '            open(os.path.join(self.dir, f"{token}-{i}"), "w").close()',
  '            seen = lambda: sum(1 for f in os.listdir(self.dir) if f.startswith(f"{token}-"))',
  '            deadline = time.monotonic() + 10',
  '            while seen() < 2 and time.monotonic() < deadline:',
  '                time.sleep(0.01)',
  '            out.append(pb_utils.InferenceResponse([pb_utils.Tensor("OUT", np.array([seen()], np.int32)), pb_utils.Tensor("IDX", np.zeros(1, np.uint32))]))',
  '        return out',
];

// A plain model's coroutine gathers two async_exec() calls to pair_count and answers the sum of
// their OUTs: 4 when both were in flight at once, 3 when they ran one after the other.
PLAIN.gather_pair = [
  'import asyncio',
  'import numpy as np',
  'import triton_python_backend_utils as pb_utils',
  'class TritonPythonModel:',
  '    async def execute(self, requests):',
  '        out = []',
  '        for r in requests:',
  '            token = int(pb_utils.get_input_tensor_by_name(r, "IN").as_numpy()[0])',
  '            pair = [pb_utils.InferenceRequest(model_name="pair_count", inputs=[pb_utils.Tensor("IN", np.array([token, i], np.int32))], requested_output_names=["OUT"]) for i in range(2)]',
  '            counts = await asyncio.gather(*(p.async_exec() for p in pair))',
  '            total = sum(-100 if c.has_error() else int(pb_utils.get_output_tensor_by_name(c, "OUT").as_numpy().sum()) for c in counts)',
  '            out.append(pb_utils.InferenceResponse([pb_utils.Tensor("OUT", np.array([total], np.int32)), pb_utils.Tensor("IDX", np.zeros(1, np.uint32))]))',
  '        return out',
];

// OUT = IN + 1 with response parameters; IN [-1]: parameters Triton refuses (a float), caught and
// answered as the error's text in the parameters.
PLAIN.answer_params = perRequest([
  'tensors = [pb_utils.Tensor("OUT", (v + 1).astype(np.int32)), pb_utils.Tensor("IDX", np.zeros(v.shape, np.uint32))]',
  'try:',
  '    parameters = {"temperature": 0.5} if v[0] == -1 else {"finish_reason": "stop", "tokens": 3, "cached": False}',
  '    out.append(pb_utils.InferenceResponse(tensors, parameters=parameters))',
  'except pb_utils.TritonModelException as e:',
  '    out.append(pb_utils.InferenceResponse(tensors, parameters={"refused": str(e)}))',
]);

// Asks answer_params through BLS and answers its response's parameter "tokens" × 100 + its OUT.
PLAIN.bls_params = perRequest([
  'got = pb_utils.InferenceRequest(model_name="answer_params", inputs=[pb_utils.Tensor("IN", v)], requested_output_names=["OUT"]).exec()',
  'value = int(pb_utils.get_output_tensor_by_name(got, "OUT").as_numpy()[0])',
  'out.append(pb_utils.InferenceResponse([pb_utils.Tensor("OUT", np.array([json.loads(got.parameters())["tokens"] * 100 + value], np.int32)), pb_utils.Tensor("IDX", np.zeros(1, np.uint32))]))',
]);

// OUT = IN * 2 for any number of elements (the ensemble's pre- and postprocessing step).
PLAIN.double_any = PLAIN.double!;

PLAIN.sender_once = [
  // Triton's default mode with a response sender: one response a request, with the final flag,
  // and execute() returns None; IN [-1] sends without the flag, IN [-2] sends nothing.
  'import numpy as np',
  'import triton_python_backend_utils as pb_utils',
  'class TritonPythonModel:',
  '    def execute(self, requests):',
  '        for r in requests:',
  '            v = pb_utils.get_input_tensor_by_name(r, "IN").as_numpy()',
  '            response = pb_utils.InferenceResponse([pb_utils.Tensor("OUT", (v + 1).astype(np.int32)), pb_utils.Tensor("IDX", np.zeros(v.shape, np.uint32))])',
  '            if v[0] == -2:',
  '                continue',
  '            r.get_response_sender().send(response, 0 if v[0] == -1 else pb_utils.TRITONSERVER_RESPONSE_COMPLETE_FINAL)',
  '        return None',
];

/** Decoupled models that call others through BLS. */
const BLS_MODELS: Record<string, string[]> = {
  // Streams repeat's responses through double (a plain exec() while the decoupled one is open),
  // after checking that a plain exec() of a decoupled model is refused.
  bls_stream: [
    '    def execute(self, requests):',
    '        for r in requests:',
    '            sender = r.get_response_sender()',
    '            x = pb_utils.get_input_tensor_by_name(r, "IN")',
    '            refused = pb_utils.InferenceRequest(model_name="repeat", inputs=[x], requested_output_names=["OUT"]).exec()',
    '            assert refused.has_error() and "decoupled=True" in refused.error().message(), refused.error().message()',
    '            for i, part in enumerate(pb_utils.InferenceRequest(model_name="repeat", inputs=[x], requested_output_names=["OUT", "IDX"]).exec(decoupled=True)):',
    '                if part.has_error():',
    '                    sender.send(pb_utils.InferenceResponse(error=part.error()))',
    '                    continue',
    '                if not part.output_tensors():',
    '                    continue  # the final flag alone',
    '                v = pb_utils.get_output_tensor_by_name(part, "OUT")',
    '                doubled = pb_utils.InferenceRequest(model_name="double", inputs=[pb_utils.Tensor("IN", v.as_numpy())], requested_output_names=["OUT"]).exec()',
    '                sender.send(response(int(pb_utils.get_output_tensor_by_name(doubled, "OUT").as_numpy()[0]), i))',
    '            sender.send(flags=FINAL)',
  ],
  // BLS from a response thread, after execute() returned (the next execute() may use the shared
  // memory meanwhile): a plain exec() of double, a plain exec() of repeat refused, slow_final's
  // stream left after its first response, repeat's stream read to its end; a response each.
  bls_thread: [
    '    def execute(self, requests):',
    '        for r in requests:',
    '            def work(sender=r.get_response_sender(), x=pb_utils.get_input_tensor_by_name(r, "IN")):',
    '                try:',
    '                    doubled = pb_utils.InferenceRequest(model_name="double", inputs=[x], requested_output_names=["OUT"]).exec()',
    '                    assert not doubled.has_error(), doubled.error().message()',
    '                    sender.send(response(int(pb_utils.get_output_tensor_by_name(doubled, "OUT").as_numpy()[0]), 0))',
    '                    refused = pb_utils.InferenceRequest(model_name="repeat", inputs=[x], requested_output_names=["OUT"]).exec()',
    '                    assert refused.has_error() and "decoupled=True" in refused.error().message(), refused.error().message()',
    '                    stream = pb_utils.InferenceRequest(model_name="slow_final", inputs=[x], requested_output_names=["OUT"]).exec(decoupled=True)',
    '                    next(stream)',
    '                    del stream',
    '                    parts = pb_utils.InferenceRequest(model_name="repeat", inputs=[x], requested_output_names=["OUT", "IDX"]).exec(decoupled=True)',
    '                    for i, part in enumerate(p for p in parts if p.output_tensors()):',
    '                        sender.send(response(int(pb_utils.get_output_tensor_by_name(part, "OUT").as_numpy()[0]) + 100, i + 1))',
    '                    sender.send(flags=FINAL)',
    '                except Exception as e:  # noqa: BLE001',
    '                    sender.send(pb_utils.InferenceResponse(error=pb_utils.TritonError(repr(e))), FINAL)',
    '            threading.Thread(target=work).start()',
  ],
  // IN [0]: reads the first response of slow_final and leaves its final flag, which comes 0.2 s
  // later; IN [v]: 0.3 s later asks double for 2v (a plain BLS call, reading replies while that
  // stale flag is in the pipe: the stub must know to drop it).
  bls_abandon: [
    '    def execute(self, requests):',
    '        import time',
    '        sender = requests[0].get_response_sender()',
    '        x = pb_utils.get_input_tensor_by_name(requests[0], "IN")',
    '        if int(x.as_numpy()[0]) == 0:',
    '            first = next(iter(pb_utils.InferenceRequest(model_name="slow_final", inputs=[x], requested_output_names=["OUT"]).exec(decoupled=True)))',
    '            out = pb_utils.get_output_tensor_by_name(first, "OUT")',
    '        else:',
    '            time.sleep(0.3)',
    '            doubled = pb_utils.InferenceRequest(model_name="double", inputs=[x], requested_output_names=["OUT"]).exec()',
    '            assert not doubled.has_error(), doubled.error().message()',
    '            out = pb_utils.get_output_tensor_by_name(doubled, "OUT")',
    '        sender.send(pb_utils.InferenceResponse([out, pb_utils.Tensor("IDX", np.zeros(1, np.uint32))]), FINAL)',
  ],
};

let server: RealServer;
let grpc: GrpcClient;

/** The response messages of one stream, decoded the way a client reads them. */
interface StreamAnswer {
  error_message: string;
  infer_response: { id: string; outputs?: Array<{ name: string }>; raw_output_contents?: Buffer[]; parameters?: Record<string, { bool_param?: boolean }> };
}
const final = (a: StreamAnswer): boolean | undefined => a.infer_response.parameters?.triton_final_response?.bool_param;
const int32 = streamInt32;
const request = (model: string, id: string, values: number[], parameters: Record<string, unknown> = {}) => ({
  model_name: model, id, parameters,
  inputs: [{ name: 'IN', datatype: 'INT32', shape: [values.length] }],
  raw_input_contents: [Buffer.from(new Int32Array(values).buffer)],
});

describe.skipIf(!python.available)('decoupled Python-backend models in gebe serve', () => {
  beforeAll(async () => {
    const repo = mkdtempSync(path.join(os.tmpdir(), 'gebe-decoupled-'));
    for (const [name, body] of Object.entries({ ...MODELS, ...BLS_MODELS })) {
      mkdirSync(path.join(repo, name, '1'), { recursive: true });
      writeFileSync(path.join(repo, name, 'config.pbtxt'), CONFIG(name));
      writeFileSync(path.join(repo, name, '1', 'model.py'), [...HEADER, ...body, ''].join('\n'));
    }
    // An ensemble around a decoupled step: double_any, then repeat (one response an element),
    // then double_any again for each of repeat's responses.
    mkdirSync(path.join(repo, 'stream_pipeline', '1'), { recursive: true });
    const step = (model: string, from: string, out: string, idx: string) =>
      `{ model_name: "${model}" model_version: -1 input_map { key: "IN" value: "${from}" } output_map { key: "OUT" value: "${out}" } output_map { key: "IDX" value: "${idx}" } }`;
    writeFileSync(path.join(repo, 'stream_pipeline', 'config.pbtxt'), [
      'name: "stream_pipeline"', 'platform: "ensemble"', 'max_batch_size: 0',
      'input [ { name: "IN" data_type: TYPE_INT32 dims: [ -1 ] } ]',
      'output [ { name: "OUT" data_type: TYPE_INT32 dims: [ -1 ] }, { name: "IDX" data_type: TYPE_UINT32 dims: [ 1 ] } ]',
      `ensemble_scheduling { step [ ${step('double_any', 'IN', 'doubled', 'zeros0')}, ${step('repeat', 'doubled', 'each', 'IDX')}, ${step('double_any', 'each', 'OUT', 'zeros1')} ] }`, '',
    ].join('\n'));
    writeParametersModel(repo);
    // Warmed at load (Triton's model_warmup): its samples' responses are read to the final flag.
    mkdirSync(path.join(repo, 'warmed', '1'), { recursive: true });
    writeFileSync(path.join(repo, 'warmed', 'config.pbtxt'), `${CONFIG('warmed')}model_warmup [ { name: "two" batch_size: 1 count: 3 inputs { key: "IN" value: { data_type: TYPE_INT32 dims: [ 2 ] zero_data: true } } } ]\n`);
    writeFileSync(path.join(repo, 'warmed', '1', 'model.py'), [...HEADER, ...MODELS.repeat!, ''].join('\n'));
    for (const [name, body] of Object.entries(PLAIN)) {
      mkdirSync(path.join(repo, name, '1'), { recursive: true });
      const config = CONFIG(name).replace('model_transaction_policy { decoupled: true }\n', '');
      const configs: Record<string, string> = {
        double_any: config.replace('dims: [ 1 ] }, { name: "IDX"', 'dims: [ -1 ] }, { name: "IDX"').replace(/IDX" data_type: TYPE_UINT32 dims: \[ 1 \]/, 'IDX" data_type: TYPE_UINT32 dims: [ -1 ]'),
        pair_count: `${config}instance_group [ { count: 2 kind: KIND_CPU } ]\n`,
      };
      writeFileSync(path.join(repo, name, 'config.pbtxt'), configs[name] ?? config);
      writeFileSync(path.join(repo, name, '1', 'model.py'), [...body, ''].join('\n'));
    }
    server = await startRealServer(repo);
    grpc = grpcClient(server.grpc);
  });
  afterAll(async () => {
    grpc?.close();
    await server?.stop();
  });

  it('streams every response of a request, each marked not final; the final flag alone is sent only when asked for', async () => {
    const plain = (await streamInfer(grpc, [request('repeat', 'a', [5, 6, 7])])) as StreamAnswer[];
    expect(plain.map((a) => [a.error_message, a.infer_response.id, int32(a, 'OUT'), int32(a, 'IDX'), final(a)])).toEqual([
      ['', 'a', 5, 0, false], ['', 'a', 6, 1, false], ['', 'a', 7, 2, false],
    ]);
    const asked = (await streamInfer(grpc, [request('repeat', 'b', [1, 2], { triton_enable_empty_final_response: { bool_param: true } })])) as StreamAnswer[];
    expect(asked).toHaveLength(3);
    expect(asked.map(final)).toEqual([false, false, true]);
    expect(asked[2]!.infer_response).toMatchObject({ id: 'b', outputs: [] });
    // No element, no response: the request ends with the final flag only.
    expect(await streamInfer(grpc, [request('repeat', 'c', [])])).toEqual([]);
  });

  it('takes responses sent from a thread after execute() returned, requests of one stream each whole', async () => {
    const answers = (await streamInfer(grpc, [request('threaded', 'x', [1, 2, 3]), request('threaded', 'y', [4])])) as StreamAnswer[];
    const of = (id: string) => answers.filter((a) => a.infer_response.id === id);
    expect(of('x').map((a) => [int32(a, 'OUT'), int32(a, 'IDX'), final(a)])).toEqual([[10, 0, false], [20, 1, false], [30, 2, true]]);
    expect(of('y').map((a) => [int32(a, 'OUT'), final(a)])).toEqual([[40, true]]);
  });

  it('carries an error response in band and goes on; a second final flag is refused to model.py', async () => {
    const answers = (await streamInfer(grpc, [request('errors', 'e', [0], { triton_enable_empty_final_response: { bool_param: true } })])) as StreamAnswer[];
    expect(answers.map((a) => [a.error_message, final(a)])).toEqual([['', false], ['step 2 failed', false], ['', true]]);
    expect(answers[1]!.infer_response).toMatchObject({ id: 'e', model_name: 'errors' });
  });

  it('ends a request with the error when execute() raises or the process dies after a response; refuses an oversized response', async () => {
    const raised = (await streamInfer(grpc, [request('raises', 'r', [0])])) as StreamAnswer[];
    expect(raised.map((a) => [a.error_message, final(a)])).toEqual([['', false], [expect.stringMatching(/^ValueError: broke after one response \(at model\.py:\d+ in execute\)$/), true]]);
    const died = (await streamInfer(grpc, [request('dies', 'd', [0])])) as StreamAnswer[];
    expect(died.map((a) => final(a))).toEqual([false, true]);
    expect(died[1]!.error_message).toMatch(/Python process of instance 'dies_0_0' of model 'dies' ended: it exited with code 3.* before it sent the final response/);
    const big = (await streamInfer(grpc, [request('big', 'b', [0])])) as StreamAnswer[];
    expect(big.map((a) => [a.error_message, final(a)])).toEqual([[expect.stringMatching(/^a decoupled response of 10666\d{3} bytes \(its outputs in base64\) exceeds gebe's limit of 4194304 bytes for one response$/), true]]);
    // A new process answers the next request.
    const again = (await streamInfer(grpc, [request('repeat', 'n', [9])])) as StreamAnswer[];
    expect(again.map((a) => int32(a, 'OUT'))).toEqual([9]);
  });

  it('runs async execute() coroutines on one event loop: a decoupled model\'s side by side, a plain model\'s waited for, with BLS in flight together', async () => {
    const met = (await streamInfer(grpc, [request('async_rendezvous', 'first', [1]), request('async_rendezvous', 'second', [2])])) as StreamAnswer[];
    expect(met.map((a) => [a.infer_response.id, int32(a, 'OUT'), final(a)]).sort()).toEqual([['first', 1, true], ['second', 2, true]]);
    const raised = (await streamInfer(grpc, [request('async_raises', 'r', [0])])) as StreamAnswer[];
    expect(raised.map((a) => [a.error_message, final(a)])).toEqual([['', false], [expect.stringMatching(/^ValueError: async broke after one response \(at model\.py:\d+ in execute\)$/), true]]);
    const infer = (values: number[]) => postJson(`${server.http}/v2/models/async_loop/infer`, { inputs: [{ name: 'IN', datatype: 'INT32', shape: [values.length], data: values }], outputs: [{ name: 'OUT' }] });
    const first = await infer([1, 2, 3]);
    expect([first.status, first.body.outputs?.[0]?.data ?? first.body.error]).toEqual([200, [1112]]);
    const second = await infer([5]);
    expect([second.status, second.body.outputs?.[0]?.data ?? second.body.error]).toEqual([200, [1110]]);
    // async_exec() calls of a plain model's coroutine are in flight together, as in Triton's BLS example.
    const paired = await postJson(`${server.http}/v2/models/gather_pair/infer`, { inputs: [{ name: 'IN', datatype: 'INT32', shape: [1], data: [7] }], outputs: [{ name: 'OUT' }] });
    expect([paired.status, paired.body.outputs?.[0]?.data ?? paired.body.error]).toEqual([200, [4]]);
  });

  it('carries the parameters model.py gives a response to HTTP, gRPC, stream and BLS clients', async () => {
    const http = await postJson(`${server.http}/v2/models/answer_params/infer`, { inputs: [{ name: 'IN', datatype: 'INT32', shape: [1], data: [4] }], outputs: [{ name: 'OUT' }] });
    expect([http.status, http.body.parameters, http.body.outputs?.[0]?.data]).toEqual([200, { finish_reason: 'stop', tokens: 3, cached: false }, [5]]);
    const unary = await call(grpc, 'ModelInfer', request('answer_params', 'u', [4])) as { parameters: Record<string, Record<string, unknown>> };
    expect(Object.fromEntries(Object.entries(unary.parameters).map(([k, p]) => [k, p[p.parameter_choice as string]]))).toEqual({ finish_reason: 'stop', tokens: 3, cached: false });
    expect(unary.parameters.tokens!.parameter_choice).toBe('int64_param');
    const streamed = (await streamInfer(grpc, [request('stream_params', 's', [0])])) as Array<{ infer_response: { parameters: Record<string, Record<string, unknown>> } }>;
    expect(streamed.map((a) => Object.fromEntries(Object.entries(a.infer_response.parameters).map(([k, p]) => [k, p[p.parameter_choice as string]])))).toEqual([
      { index: 0, last: false, triton_final_response: false }, { index: 1, last: true, triton_final_response: false },
    ]);
    const bls = await postJson(`${server.http}/v2/models/bls_params/infer`, { inputs: [{ name: 'IN', datatype: 'INT32', shape: [1], data: [9] }] });
    expect([bls.status, bls.body.outputs?.[0]?.data ?? bls.body.error]).toEqual([200, [310]]);
    const refused = await postJson(`${server.http}/v2/models/answer_params/infer`, { inputs: [{ name: 'IN', datatype: 'INT32', shape: [1], data: [-1] }] });
    expect(refused.body.parameters).toEqual({ refused: 'Expect parameters values to have type bool/int/str, found type float' });
  });

  it('tells model.py when the client of an open request goes away (is_cancelled())', async () => {
    const stream = grpc.ModelStreamInfer!();
    let got = 0;
    stream.on('error', () => undefined);  // the cancellation, on the client's side
    const three = new Promise<void>((resolve) => stream.on('data', () => ++got === 3 && resolve()));
    stream.write(request('cancellable', 'k', [0]));
    await three;
    stream.cancel();
    const marker = path.join(server.repo, 'cancellable', 'cancelled-k');
    for (let i = 0; i < 500 && !existsSync(marker); i++) await new Promise((r) => setTimeout(r, 10));
    expect(existsSync(marker)).toBe(true);
    for (let i = 0; i < 500 && server.manager.resolve('cancellable').pendingCount() > 0; i++) await new Promise((r) => setTimeout(r, 10));
    expect(server.manager.resolve('cancellable').pendingCount()).toBe(0);
  });

  it('takes one response a request through the sender of a model that is not decoupled (Triton\'s default mode)', async () => {
    const infer = (v: number) => postJson(`${server.http}/v2/models/sender_once/infer`, { inputs: [{ name: 'IN', datatype: 'INT32', shape: [1], data: [v] }], outputs: [{ name: 'OUT' }] });
    const ok = await infer(4);
    expect([ok.status, ok.body.outputs]).toEqual([200, [{ name: 'OUT', datatype: 'INT32', shape: [1], data: [5] }]]);
    const noFlag = await infer(-1);
    expect([noFlag.status, noFlag.body.error]).toEqual([500, expect.stringContaining('send(): a model that is not decoupled sends exactly one response a request, with flags=TRITONSERVER_RESPONSE_COMPLETE_FINAL')]);
    const nothing = await infer(-2);
    expect([nothing.status, nothing.body.error]).toEqual([500, expect.stringContaining('execute() returned None but sent no response for request 0 through its response sender')]);
  });

  it('runs an ensemble around a decoupled step once per response, and streams its answers', async () => {
    const answers = (await streamInfer(grpc, [request('stream_pipeline', 'e', [1, 2, 3], { triton_enable_empty_final_response: { bool_param: true } })])) as StreamAnswer[];
    expect(answers.map((a) => [a.error_message, a.infer_response.id, a.infer_response.outputs?.length ? [int32(a, 'OUT'), int32(a, 'IDX')] : null, final(a)])).toEqual([
      ['', 'e', [4, 0], false], ['', 'e', [8, 1], false], ['', 'e', [12, 2], false], ['', 'e', null, true],
    ]);
    const sse = await fetch(`${server.http}/v2/models/stream_pipeline/generate_stream`, { method: 'POST', body: JSON.stringify({ IN: [5] }) });
    expect(await sse.text()).toBe('data: {"model_name":"stream_pipeline","model_version":"1","OUT":20,"IDX":0}\n\n');
    const http = await postJson(`${server.http}/v2/models/stream_pipeline/infer`, { inputs: [{ name: 'IN', datatype: 'INT32', shape: [1], data: [1] }] });
    expect([http.status, http.body.error]).toEqual([400, "HTTP end point doesn't support models with decoupled transaction policy"]);
    const stats = (await getJson(`${server.http}/v2/models/stream_pipeline/stats`)).body.model_stats[0].inference_stats;
    expect(stats.success.count).toBe(2);
    // Its served config says so, as Triton completes an ensemble's config, so gebe infer streams it.
    expect((await getJson(`${server.http}/v2/models/stream_pipeline/config`)).body.model_transaction_policy).toEqual({ decoupled: true });
    const cwd = mkdtempSync(path.join(os.tmpdir(), 'gebe-decoupled-ensemble-'));
    writeFileSync(path.join(cwd, 'in.json'), JSON.stringify({ data: [{ IN: [7] }] }));
    const infer = await runGebe(['infer', '-m', 'stream_pipeline', '-u', server.grpc, '-i', 'grpc', '--input', 'in.json', '--shape', 'IN:1', '--json'], { cwd });
    expect(infer.code).toBe(0);
    expect((JSON.parse(infer.out) as { responses: unknown[] }).responses).toHaveLength(1);
  });

  it('hands a request\'s parameters to model.py (request.parameters()) from HTTP, gRPC and generate', async () => {
    const expected = { temperature: 0.5, greeting: 'hi', stream: false };
    const http = await postJson(`${server.http}/v2/models/params/infer`, {
      inputs: [{ name: 'IN', datatype: 'INT32', shape: [1], data: [1] }], parameters: { ...expected, priority: 0 },
    });
    expect(JSON.parse(http.body.outputs[0].data[0])).toEqual(expected);
    const overGrpc = await call(grpc, 'ModelInfer', {
      ...request('params', 'p', [1]),
      parameters: { temperature: { double_param: 0.5 }, greeting: { string_param: 'hi' }, stream: { bool_param: false }, timeout: { int64_param: 0 } },
    });
    expect(JSON.parse(Buffer.from(overGrpc.raw_output_contents[0]).subarray(4).toString())).toEqual(expected);
    const generated = await fetch(`${server.http}/v2/models/params/generate`, { method: 'POST', body: JSON.stringify({ IN: 1, greeting: 'hi', parameters: { temperature: 0.5, stream: false } }) });
    expect(JSON.parse((await generated.json() as { P: string }).P)).toEqual(expected);
    // Bounded: they travel in a control message.
    const big = await postJson(`${server.http}/v2/models/params/infer`, { inputs: [{ name: 'IN', datatype: 'INT32', shape: [1], data: [1] }], parameters: { text: 'x'.repeat(70_000) } });
    expect([big.status, big.body.error]).toEqual([400, 'the request\'s parameters take 70011 bytes as JSON, more than the 65536 a Python model takes']);
  });

  it('runs model_warmup at load, reading each sample\'s responses', async () => {
    const stats = (await getJson(`${server.http}/v2/models/warmed/stats`)).body.model_stats[0].inference_stats;
    expect(stats.success.count).toBe(3);
    const answers = (await streamInfer(grpc, [request('warmed', 'w', [1, 2])])) as StreamAnswer[];
    expect(answers.map((a) => int32(a, 'OUT'))).toEqual([1, 2]);
  });

  it('refuses HTTP infer and gRPC ModelInfer in Triton\'s words, and counts finished requests', async () => {
    const http = await postJson(`${server.http}/v2/models/repeat/infer`, { inputs: [{ name: 'IN', datatype: 'INT32', shape: [1], data: [1] }] });
    expect(http).toEqual({ status: 400, body: { error: "HTTP end point doesn't support models with decoupled transaction policy" } });
    const unary = await callError(grpc, 'ModelInfer', request('repeat', 'u', [1]));
    expect([unary.code, unary.details]).toEqual([12, "ModelInfer RPC doesn't support models with decoupled transaction policy"]);  // UNIMPLEMENTED
    const before = (await getJson(`${server.http}/v2/models/threaded/stats`)).body.model_stats[0].inference_stats.success.count as number;
    await streamInfer(grpc, [request('threaded', 's1', [1, 2]), request('threaded', 's2', [3])]);
    const after = (await getJson(`${server.http}/v2/models/threaded/stats`)).body.model_stats[0].inference_stats.success.count as number;
    expect(after - before).toBe(2);
  });

  it('streams to gRPC\'s C-core client (Python grpcio)', async () => {
    const req = grpcRoot().lookupType('inference.ModelInferRequest');
    const encoded = Buffer.from(req.encode(req.fromObject(request('repeat', 'py', [11, 12]))).finish()).toString('base64');
    const client = [
      'import base64, json, sys, grpc',
      'ident = lambda b: b',
      'with grpc.insecure_channel(sys.argv[1]) as ch:',
      '    stream = ch.stream_stream("/inference.GRPCInferenceService/ModelStreamInfer", request_serializer=ident, response_deserializer=ident)',
      '    print(json.dumps([base64.b64encode(r).decode() for r in stream(iter([base64.b64decode(sys.argv[2])]), timeout=20)]))',
    ].join('\n');
    const { stdout } = await promisify(execFile)('python3', ['-c', client, server.grpc, encoded], { timeout: 60_000 });
    const type = grpcRoot().lookupType('inference.ModelStreamInferResponse');
    const answers = (JSON.parse(stdout) as string[]).map((b) => type.toObject(type.decode(Buffer.from(b, 'base64')), { defaults: true }) as StreamAnswer);
    expect(answers.map((a) => [int32(a, 'OUT'), final(a)])).toEqual([[11, false], [12, false]]);
  });

  it('gebe infer prints each response as it comes, over gRPC and in process (over HTTP it says to use gRPC); gebe warmup runs one', async () => {
    const cwd = mkdtempSync(path.join(os.tmpdir(), 'gebe-decoupled-infer-'));
    writeFileSync(path.join(cwd, 'in.json'), JSON.stringify({ data: [{ IN: [4, 5, 6] }] }));
    const args = (model: string) => ['infer', '-m', model, '-u', server.grpc, '-i', 'grpc', '--input', 'in.json', '--shape', 'IN:3'];
    const text = await runGebe(args('repeat'), { cwd });
    expect([text.code, text.err]).toEqual([0, '']);
    expect(text.out).toContain(`repeat v1 (grpc://${server.grpc}, streaming)`);
    expect(text.out.match(/^response \d+$/gm)).toEqual(['response 1', 'response 2', 'response 3']);
    expect(text.out).toContain('3 responses, then the final flag');
    const json = await runGebe([...args('threaded'), '--json'], { cwd });
    expect(json.code).toBe(0);
    const result = JSON.parse(json.out) as { responses: Array<{ outputs: Array<{ name: string; data?: number[]; values?: number[] }> }> };
    expect(result.responses).toHaveLength(3);
    expect(JSON.stringify(result.responses.map((r) => r.outputs.find((o) => o.name === 'OUT')))).toMatch(/40.*50.*60/);
    const failed = await runGebe(args('errors'), { cwd });
    expect(failed.code).toBe(2);
    expect(failed.out).toContain('error: step 2 failed');
    expect(failed.err).toContain("1 of the 2 responses of model 'errors' were errors");
    const http = await runGebe(['infer', '-m', 'repeat', '-u', server.http.replace('http://', ''), '--input', 'in.json', '--shape', 'IN:3'], { cwd });
    expect(http.code).toBe(2);
    expect(http.err).toContain("model 'repeat' is decoupled (model_transaction_policy { decoupled: true }): it sends any number of responses a request, which HTTP infer cannot take");
    expect(http.err).toContain('pass -i grpc');
    // In process a (Python) decoupled model streams the same way.
    const local = await runGebe(['infer', '-m', 'repeat', '--model-repository', server.repo, '--input', 'in.json', '--shape', 'IN:3'], { cwd });
    expect([local.code, local.err]).toEqual([0, '']);
    expect(local.out).toContain('repeat v1 (in process, python engine, streaming)');
    expect(local.out.match(/^response \d+$/gm)).toEqual(['response 1', 'response 2', 'response 3']);
    // gebe warmup runs each of its requests to the final flag, in process and over gRPC; over HTTP
    // it says to use gRPC.
    const warmup = await runGebe(['warmup', server.repo, '-m', 'repeat', '--runs', '2'], { cwd });
    expect([warmup.code, warmup.err]).toEqual([0, '']);
    expect(warmup.out).toMatch(/zeros_batch_1 .* 1\+2/);
    const remote = await runGebe(['warmup', '-m', 'repeat', '-u', server.grpc, '-i', 'grpc', '--runs', '2'], { cwd });
    expect([remote.code, remote.err]).toEqual([0, '']);
    expect(remote.out).toContain(`repeat v1 (grpc://${server.grpc}`);
    expect(remote.out).toMatch(/zeros_batch_1 .* 1\+2/);
    const overHttp = await runGebe(['warmup', '-m', 'repeat', '-u', server.http.replace('http://', '')], { cwd });
    expect(overHttp.code).toBe(2);
    expect(overHttp.err).toContain('which HTTP infer cannot take');
    expect(overHttp.err).toContain('pass -i grpc');
    const errors = await runGebe(['warmup', '-m', 'errors', '-u', server.grpc, '-i', 'grpc'], { cwd });
    expect(errors.code).toBe(2);
    expect(errors.err).toContain('model "errors" answered an error: step 2 failed');
  });

  it('gebe perf measures a decoupled model with --streaming and in process, each request done at its final flag', async () => {
    const model = await new GrpcModelEndpoint(server.grpc, 'slow_final').describe();
    const client = new GrpcStreamInferClient(server.grpc, [encodeGrpcInferRequest('slow_final', model.version, [{ name: 'IN', datatype: 'INT32', shape: [1], data: new Uint8Array(4) }], ['OUT'])]);
    const successes = async () => (await getJson(`${server.http}/v2/models/slow_final/stats`)).body.model_stats[0].inference_stats.success.count as number;
    try {
      const before = await successes();
      await Promise.all([client.infer(), client.infer()]);
      // Done means the final flag came: the server counted both requests before sending it.
      expect(await successes()).toBe(before + 2);
    } finally {
      await client.close();
    }
    const cwd = mkdtempSync(path.join(os.tmpdir(), 'gebe-decoupled-perf-'));
    const perf = await runGebe(['perf', '-m', 'repeat', '-u', server.grpc, '-i', 'grpc', '--streaming', '--shape', 'IN:3', '--concurrency', '1,2',
      '--measurement-mode', 'count_windows', '--measurement-request-count', '20', '-s', '1000', '-r', '3', '-f', 'perf.csv', '--profile-export-file', 'profile.json'], { cwd });
    expect([perf.code, perf.err.match(/error.*/)?.[0]]).toEqual([0, undefined]);
    expect(readFileSync(path.join(cwd, 'perf.csv'), 'utf8').trim().split('\n')).toHaveLength(3);
    // The profile export times each of a request's three responses (the final flag alone is not one).
    const profile = JSON.parse(readFileSync(path.join(cwd, 'profile.json'), 'utf8')) as { experiments: Array<{ requests: Array<{ timestamp: number; response_timestamps: number[] }> }> };
    const exported = profile.experiments.flatMap((e) => e.requests);
    expect(exported.length).toBeGreaterThanOrEqual(2 * 60);
    expect(exported.every((r) => r.response_timestamps.length === 3 && r.response_timestamps.every((t, i, all) => t >= (all[i - 1] ?? r.timestamp)))).toBe(true);
    // In process a decoupled model's requests end at their final flag too.
    const local = await runGebe(['perf', '-m', 'repeat', '--model-repository', server.repo, '--shape', 'IN:3',
      '--measurement-mode', 'count_windows', '--measurement-request-count', '20', '-s', '1000', '-r', '3', '--json', '--profile-export-file', 'local.json'], { cwd });
    expect(local.code).toBe(0);
    const localProfile = JSON.parse(readFileSync(path.join(cwd, 'local.json'), 'utf8')) as typeof profile;
    expect(localProfile.experiments[0]!.requests.every((r) => r.response_timestamps.length === 3)).toBe(true);
    expect((JSON.parse(local.out) as { rows: Array<{ status: string }> }).rows.map((r) => r.status)).toEqual(['stable']);
    const plain = await runGebe(['perf', '-m', 'repeat', '-u', server.grpc, '-i', 'grpc', '--shape', 'IN:3', '-r', '3', '--measurement-interval', '200'], { cwd });
    expect(plain.code).toBe(2);
    expect(plain.err).toContain("model 'repeat' is decoupled");
    expect(plain.err).toContain('--streaming');
  });

  it('streams generate_stream responses as Server-Sent Events; generate takes exactly one', async () => {
    const post = (model: string, action: string, body: unknown) =>
      fetch(`${server.http}/v2/models/${model}/${action}`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
    const streamed = await post('repeat', 'generate_stream', { IN: [5, 6, 7] });
    expect([streamed.status, streamed.headers.get('content-type')]).toEqual([200, 'text/event-stream; charset=utf-8']);
    expect(await streamed.text()).toBe([5, 6, 7].map((v, i) => `data: {"model_name":"repeat","model_version":"1","OUT":${v},"IDX":${i}}\n\n`).join(''));
    const withError = await post('errors', 'generate_stream', { IN: [0] });
    expect(await withError.text()).toBe('data: {"model_name":"errors","model_version":"1","OUT":1,"IDX":0}\n\ndata: {"error":"step 2 failed"}\n\n');
    const raised = await post('raises', 'generate_stream', { IN: [0] });
    expect(await raised.text()).toMatch(/^data: \{"model_name":"raises","model_version":"1","OUT":7,"IDX":0\}\n\ndata: \{"error":"ValueError: broke after one response \(at model\.py:\d+ in execute\)"\}\n\n$/);
    // Refused before any response: an ordinary JSON error with its status.
    const unknown = await post('nope', 'generate_stream', { IN: [1] });
    expect([unknown.status, unknown.headers.get('content-type')]).toEqual([404, 'application/json']);
    const badField = await post('repeat', 'generate_stream', { IN: ['x'] });
    expect(badField.status).toBe(400);
    expect(await badField.json()).toEqual({ error: expect.stringContaining("'IN'") });

    const one = await post('threaded', 'generate', { IN: 4, parameters: { priority: 0 } });
    expect([one.status, await one.text()]).toEqual([200, '{"model_name":"threaded","model_version":"1","OUT":40,"IDX":0}']);
    const two = await post('repeat', 'generate', { IN: [1, 2] });
    expect([two.status, await two.json()]).toEqual([400, { error: "model 'repeat' sent 2 responses to a generate request, which answers exactly one; use generate_stream" }]);
  });

  it('a generate_stream client that goes away cancels its request, and the server lets go of it', async () => {
    const http = server.server.http as NativeHttpFrontend;
    const aborted = await Promise.all(['c1', 'c2', 'c3', 'c4'].map(async () => {
      const controller = new AbortController();
      const res = await fetch(`${server.http}/v2/models/cancellable/generate_stream`, { method: 'POST', body: JSON.stringify({ IN: [0] }), signal: controller.signal });
      const reader = res.body!.getReader();
      await reader.read();  // the first event
      controller.abort();
      return reader.read().then(() => false, () => true);
    }));
    expect(aborted).toEqual([true, true, true, true]);
    // Each request ended at the model's final flag (it saw is_cancelled()), and the native server
    // answered the last part: nothing is held for the clients that left.
    const model = server.manager.resolve('cancellable');
    for (let i = 0; i < 500 && (model.pendingCount() > 0 || http.inFlightCount > 0 || http.bodyBytes > 0); i++) await new Promise((r) => setTimeout(r, 10));
    expect([model.pendingCount(), http.inFlightCount, http.bodyBytes]).toEqual([0, 0, 0]);
  });

  it('frames a streamed answer in HTTP/1.1 chunks, and on HTTP/1.0 ends it with the connection', async () => {
    const raw = (version: string): Promise<string> => new Promise((resolve, reject) => {
      const body = JSON.stringify({ IN: [8, 9] });
      const url = new URL(server.http);
      const socket = net.connect(Number(url.port), url.hostname, () => socket.end(
        `POST /v2/models/repeat/generate_stream HTTP/${version}\r\nHost: x\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`));
      let text = '';
      socket.on('data', (d) => (text += d.toString('latin1')));
      socket.on('end', () => resolve(text));
      socket.on('error', reject);
    });
    const events = [8, 9].map((v, i) => `data: {"model_name":"repeat","model_version":"1","OUT":${v},"IDX":${i}}\n\n`);
    const chunked = await raw('1.1');
    expect(chunked).toMatch(/^HTTP\/1\.1 200 OK\r\nTransfer-Encoding: chunked\r\n/);
    expect(chunked).not.toMatch(/Content-Length/i);
    expect(chunked.slice(chunked.indexOf('\r\n\r\n') + 4)).toBe(`${events.map((e) => `${e.length.toString(16)}\r\n${e}\r\n`).join('')}0\r\n\r\n`);
    const plain = await raw('1.0');
    expect(plain).not.toMatch(/Transfer-Encoding|Content-Length/i);
    expect(plain).toMatch(/Connection: close\r\n/);
    expect(plain.slice(plain.indexOf('\r\n\r\n') + 4)).toBe(events.join(''));
  });

  it('runs BLS from a response thread after execute() returned, its tensors in the messages', async () => {
    const answers = (await streamInfer(grpc, [request('bls_thread', 't1', [7]), request('bls_thread', 't2', [9])])) as StreamAnswer[];
    const of = (id: string) => answers.filter((a) => a.infer_response.id === id).map((a) => [a.error_message, int32(a, 'OUT'), int32(a, 'IDX')]);
    expect(of('t1')).toEqual([['', 14, 0], ['', 107, 1]]);
    expect(of('t2')).toEqual([['', 18, 0], ['', 109, 1]]);
    // slow_final's final flags came after the threads stopped reading: dropped, and the stub still answers.
    await new Promise((r) => setTimeout(r, 300));
    expect((await streamInfer(grpc, [request('bls_thread', 't3', [1])]) as StreamAnswer[]).map((a) => int32(a, 'OUT'))).toEqual([2, 101]);
  });

  it('BLS exec(decoupled=True) iterates a decoupled model\'s responses, beside plain BLS calls; unread ones are dropped', async () => {
    const answers = (await streamInfer(grpc, [request('bls_stream', 's', [3, 4, 5])])) as StreamAnswer[];
    expect(answers.map((a) => [a.error_message, int32(a, 'OUT'), int32(a, 'IDX')])).toEqual([['', 6, 0], ['', 8, 1], ['', 10, 2]]);
    const abandoned = (await streamInfer(grpc, [request('bls_abandon', 'a1', [0])])) as StreamAnswer[];
    expect(abandoned.map((a) => [a.error_message, int32(a, 'OUT'), final(a)])).toEqual([['', 1, true]]);
    const next = (await streamInfer(grpc, [request('bls_abandon', 'a2', [21])])) as StreamAnswer[];
    expect(next.map((a) => [a.error_message, int32(a, 'OUT'), final(a)])).toEqual([['', 42, true]]);
  });

  // Last: stopping a GebeServer unloads the models of its manager, which this one shares.
  it('streams the same over TLS (--grpc-use-ssl, grpc-js serving) and node:http', async () => {
    const certs = makeTestCertificates();
    const tls = new GebeServer(server.manager, {
      host: '127.0.0.1', httpPort: 0, grpcPort: 0, metricsPort: 0, enableMetrics: false, maxBodyBytes: 1 << 20,
      grpcTls: { cert: certs.pem('server.pem'), key: certs.pem('server.key'), mutual: false }, httpFrontend: 'node',
    }, silentLogger);
    const ports = await tls.listen();
    const client = grpcClient(`localhost:${ports.grpc}`, 'inference.GRPCInferenceService', grpcJs.credentials.createSsl(certs.pem('ca.pem')));
    try {
      const answers = (await streamInfer(client, [request('threaded', 't', [1, 2]), request('repeat', 'u', [5], { triton_enable_empty_final_response: { bool_param: true } })])) as StreamAnswer[];
      const of = (id: string) => answers.filter((a) => a.infer_response.id === id);
      expect(of('t').map((a) => [int32(a, 'OUT'), final(a)])).toEqual([[10, false], [20, true]]);
      expect(of('u').map(final)).toEqual([false, true]);
      // generate_stream through node:http (the front end --http-use-ssl uses) streams the same.
      const sse = await fetch(`http://127.0.0.1:${ports.http}/v2/models/repeat/generate_stream`, { method: 'POST', body: JSON.stringify({ IN: [3, 4] }) });
      expect(await sse.text()).toBe('data: {"model_name":"repeat","model_version":"1","OUT":3,"IDX":0}\n\ndata: {"model_name":"repeat","model_version":"1","OUT":4,"IDX":1}\n\n');
      // A client that leaves mid-stream cancels its request there too.
      const controller = new AbortController();
      const left = await fetch(`http://127.0.0.1:${ports.http}/v2/models/cancellable/generate_stream`, { method: 'POST', body: JSON.stringify({ IN: [0] }), signal: controller.signal });
      await left.body!.getReader().read();
      controller.abort();
      const model = server.manager.resolve('cancellable');
      for (let i = 0; i < 500 && model.pendingCount() > 0; i++) await new Promise((r) => setTimeout(r, 10));
      expect(model.pendingCount()).toBe(0);
    } finally {
      client.close();
      await tls.stop(1000);
      certs.remove();
    }
  });
});
