/**
 * Non-finite floats end to end, against a real server on port 0 serving a real ONNX model that
 * computes them (Log of 0, of a negative and of +Inf): the server writes them in HTTP JSON as
 * Triton does (NaN, Infinity, -Infinity), reads them in JSON requests as Triton does, and gebe's own
 * clients (infer over HTTP and gRPC, perf) read such answers without error.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OnnxGraphBuilder } from '../../../helpers/onnx-builder.js';
import { parseJsonAllowingNonFinite } from '../../../../src/core/json/nan-json.js';
import { runGebe } from '../../../helpers/gebe-cli.js';
import { mnistRepository, startRealServer, type RealServer } from './helpers.js';

let s: RealServer;
const tmp = mkdtempSync(path.join(tmpdir(), 'gebe-nonfinite-'));

beforeAll(async () => {
  const log = new OnnxGraphBuilder().input('x', 'FLOAT', [4]).output('y', 'FLOAT', [4]).node('Log', ['x'], ['y']).encode();
  const ints = new OnnxGraphBuilder().input('i', 'INT32', [2]).output('o', 'INT32', [2]).node('Identity', ['i'], ['o']).encode();
  s = await startRealServer(mnistRepository({
    log: { config: 'name: "log"\nbackend: "ge"\ninput [ { name: "x", data_type: TYPE_FP32, dims: [ 4 ] } ]\noutput [ { name: "y", data_type: TYPE_FP32, dims: [ 4 ] } ]\n', model: log },
    ints: { config: 'name: "ints"\nbackend: "ge"\ninput [ { name: "i", data_type: TYPE_INT32, dims: [ 2 ] } ]\noutput [ { name: "o", data_type: TYPE_INT32, dims: [ 2 ] } ]\n', model: ints },
  }));
});
afterAll(async () => {
  await s?.stop();
  rmSync(tmp, { recursive: true, force: true });
});

const postText = async (model: string, text: string) => {
  const res = await fetch(`${s.http}/v2/models/${model}/infer`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: text });
  return { status: res.status, text: await res.text() };
};

describe('non-finite floats over HTTP JSON', () => {
  it('answers a model that computes them with the literals, and takes them in a JSON request', async () => {
    const r = await postText('log', '{"inputs":[{"name":"x","datatype":"FP32","shape":[4],"data":[0,-1,Infinity,NaN]}]}');
    expect(r.status).toBe(200);
    expect(r.text).toContain('"data":[-Infinity,NaN,Infinity,NaN]');
    const answer = parseJsonAllowingNonFinite(r.text) as { outputs: Array<{ data: number[] }> };
    expect(answer.outputs[0]!.data).toEqual([-Infinity, NaN, Infinity, NaN]);
    // Strings that spell the tokens stay strings: here a request id, echoed back.
    const named = await postText('log', '{"id":"NaN \\"Infinity\\"","inputs":[{"name":"x","datatype":"FP32","shape":[4],"data":[-Infinity,1,1,1]}]}');
    expect(named.status).toBe(200);
    expect(parseJsonAllowingNonFinite(named.text)).toMatchObject({ id: 'NaN "Infinity"', outputs: [{ data: [NaN, 0, 0, 0] }] });
  });

  it('refuses NaN for an integer tensor, naming the element as the client wrote it', async () => {
    const r = await postText('ints', '{"inputs":[{"name":"i","datatype":"INT32","shape":[2],"data":[1,NaN]}]}');
    expect(r.status).toBe(400);
    expect(JSON.parse(r.text).error).toBe("element 1 of input 'i' is NaN, expected an integer in [-2147483648, 2147483647] for INT32");
    const key = await postText('log', '{"inputs":[{"name":"x","datatype":"FP32","shape":[4],"data":[1,1,1,1]}], NaN: 1}');
    expect(key.status).toBe(400);
    expect(JSON.parse(key.text).error).toMatch(/^failed to parse the request JSON buffer/);
  });
});

describe("gebe's clients read non-finite answers", () => {
  it('gebe infer over HTTP and gRPC prints them', async () => {
    writeFileSync(path.join(tmp, 'x.json'), JSON.stringify({ data: [{ x: [0, -1, 1, 2] }] }));
    for (const protocol of [['-u', s.http], ['-u', s.grpc, '-i', 'grpc']]) {
      const r = await runGebe(['infer', '-m', 'log', ...protocol, '--input', 'x.json'], { cwd: tmp });
      expect(r.err).toBe('');
      expect(r.code).toBe(0);
      expect(r.out).toContain('y FP32 [4]\n  [-Infinity, NaN, 0, 0.69315]');
    }
  });

  it('gebe perf measures a model whose every answer is -Infinity, over HTTP and gRPC', async () => {
    for (const protocol of [['-u', s.http], ['-u', s.grpc, '-i', 'grpc']]) {
      const r = await runGebe(['perf', '-m', 'log', ...protocol, '--input-data', 'zero', '--json', '--measurement-mode', 'count_windows',
        '--measurement-request-count', '10', '-s', '1000', '-r', '3', '--client-threads', '0'], { cwd: tmp });
      expect(r.err).not.toMatch(/error/i);
      expect(r.code).toBe(0);
    }
  });
});
