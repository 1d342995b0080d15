/**
 * Triton's ensemble_scheduling.max_inflight_requests, served with real Python processes: a
 * decoupled `producer` streams 40 responses of 64 KB as fast as it can, a slow `consumer` (20 ms a
 * request, three instances) takes each. With max_inflight_requests 2 the consumer never runs more
 * than two at once, and the producer is held back: its sender blocks until the consumer has
 * room, instead of its responses piling up in the server. The same pipeline without the limit is
 * the control: there the consumer runs three at once and the producer finishes long before it.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pythonForTests } from '../../../helpers/python-env.js';
import { grpcClient, streamInfer, streamInt32, type GrpcClient } from '../helpers/grpc-client.js';
import { startRealServer, writeModel, type RealServer } from './helpers.js';

const python = pythonForTests();
const COUNT = 40;

// Both models log to files in their model directory.
const HEADER = [
  'import os, time',
  'import numpy as np',
  'import triton_python_backend_utils as pb_utils',
  'class TritonPythonModel:',
  '    def initialize(self, args):',
  '        self.dir = args["model_repository"]',
];

const PRODUCER = [
  ...HEADER,
  '    def execute(self, requests):',
  '        for r in requests:',
  '            sender = r.get_response_sender()',
  '            n = int(pb_utils.get_input_tensor_by_name(r, "N").as_numpy()[0])',
  '            tag = r.request_id()',
  '            with open(os.path.join(self.dir, f"sent-{tag}"), "w") as log:',
  '                for i in range(n):',
  '                    blob = np.full(65536, i % 256, np.uint8)',
  '                    sender.send(pb_utils.InferenceResponse([pb_utils.Tensor("BLOB", blob), pb_utils.Tensor("IDX", np.array([i], np.int32))]))',
  '                    log.write(f"{i} {time.monotonic()}\\n")',
  '            sender.send(flags=pb_utils.TRITONSERVER_RESPONSE_COMPLETE_FINAL)',
];

const CONSUMER = [
  ...HEADER,
  '    def execute(self, requests):',
  '        out = []',
  '        for r in requests:',
  '            i = int(pb_utils.get_input_tensor_by_name(r, "IDX").as_numpy()[0])',
  '            start = time.monotonic()',
  '            time.sleep(0.02)',
  '            with open(os.path.join(self.dir, f"ran-{r.request_id()}"), "a") as log:',
  '                log.write(f"{i} {start} {time.monotonic()}\\n")',
  '            out.append(pb_utils.InferenceResponse([pb_utils.Tensor("DONE", np.array([i], np.int32))]))',
  '        return out',
];

function pipeline(repo: string, name: string, extra: string): void {
  writeModel(repo, name, [
    'platform: "ensemble"', 'max_batch_size: 0',
    'input [ { name: "N" data_type: TYPE_INT32 dims: [ 1 ] } ]',
    'output [ { name: "DONE" data_type: TYPE_INT32 dims: [ 1 ] } ]',
    'ensemble_scheduling {', extra,
    '  step [ { model_name: "producer" model_version: -1 input_map { key: "N" value: "N" } output_map { key: "BLOB" value: "blob" } output_map { key: "IDX" value: "idx" } },',
    '         { model_name: "consumer" model_version: -1 input_map { key: "BLOB" value: "blob" } input_map { key: "IDX" value: "idx" } output_map { key: "DONE" value: "DONE" } } ]',
    '}',
  ]);
}

/** Lines of "i t..." in a log the models wrote, by i. */
function readLog(file: string): Map<number, number[]> {
  const rows = readFileSync(file, 'utf8').trim().split('\n').map((line) => line.split(' ').map(Number));
  return new Map(rows.map(([i, ...times]) => [i!, times]));
}

/** The most consumer runs that overlapped in time. */
function mostAtOnce(ran: Map<number, number[]>): number {
  const edges = [...ran.values()].flatMap(([start, end]) => [[start!, 1], [end!, -1]] as const).sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let now = 0;
  let most = 0;
  for (const [, step] of edges) most = Math.max(most, (now += step));
  return most;
}

describe.skipIf(!python.available)('ensemble max_inflight_requests', () => {
  let server: RealServer;
  let repo: string;
  let grpc: GrpcClient;

  beforeAll(async () => {
    repo = mkdtempSync(path.join(os.tmpdir(), 'gebe-ensemble-inflight-'));
    writeModel(repo, 'producer', [
      'backend: "python"', 'max_batch_size: 0', 'model_transaction_policy { decoupled: true }',
      'input [ { name: "N" data_type: TYPE_INT32 dims: [ 1 ] } ]',
      'output [ { name: "BLOB" data_type: TYPE_UINT8 dims: [ 65536 ] }, { name: "IDX" data_type: TYPE_INT32 dims: [ 1 ] } ]',
    ], PRODUCER);
    writeModel(repo, 'consumer', [
      'backend: "python"', 'max_batch_size: 0',
      'input [ { name: "BLOB" data_type: TYPE_UINT8 dims: [ 65536 ] }, { name: "IDX" data_type: TYPE_INT32 dims: [ 1 ] } ]',
      'output [ { name: "DONE" data_type: TYPE_INT32 dims: [ 1 ] } ]',
      'instance_group [ { count: 3 kind: KIND_CPU } ]',
    ], CONSUMER);
    pipeline(repo, 'limited', '  max_inflight_requests: 2');
    pipeline(repo, 'unlimited', '');
    server = await startRealServer(repo);
    grpc = grpcClient(server.grpc);
  });
  afterAll(async () => {
    grpc?.close();
    await server?.stop();
  });

  /**
   * Streams one request of `model` (id `tag`) to its end, checks it answered every index, and
   * reads what the models logged: the consumer's runs (start, end) and the producer's sends, by index.
   */
  async function streamLogged(model: string, tag: string): Promise<{ ran: Map<number, number[]>; sent: Map<number, number[]> }> {
    const answers = await streamInfer(grpc, [{
      model_name: model, id: tag, inputs: [{ name: 'N', datatype: 'INT32', shape: [1] }], raw_input_contents: [Buffer.from(new Int32Array([COUNT]).buffer)],
    }]);
    expect(answers.map((a: { error_message: string }) => a.error_message).filter(Boolean)).toEqual([]);
    expect(answers.map((a: Parameters<typeof streamInt32>[0]) => streamInt32(a, 'DONE')).sort((a: number, b: number) => a - b)).toEqual([...Array(COUNT).keys()]);
    return { ran: readLog(path.join(repo, 'consumer', `ran-${tag}`)), sent: readLog(path.join(repo, 'producer', `sent-${tag}`)) };
  }

  it('runs at most max_inflight_requests at the step, and holds the decoupled step that feeds it', async () => {
    const { ran, sent } = await streamLogged('limited', 'held');
    expect(mostAtOnce(ran)).toBeLessThanOrEqual(2);
    // Held back, the producer's last send returned only once the consumer had worked through most
    // of the stream (what is in flight, waiting and in the pipe's buffers is a handful of responses).
    expect(sent.get(COUNT - 1)![0]!).toBeGreaterThan(ran.get(COUNT - 15)![0]!);
  });

  it('without the limit, the step runs as many as its instances and the producer is never held', async () => {
    const { ran, sent } = await streamLogged('unlimited', 'free');
    expect(mostAtOnce(ran)).toBe(3);
    expect(sent.get(COUNT - 1)![0]!).toBeLessThan(ran.get(COUNT - 15)![0]!);
  });
});
