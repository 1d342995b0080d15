/**
 * The native HTTP front end with several loop threads on one port (--http-thread-count 4), on the
 * real executor: 32 keep-alive connections, spread by the kernel over the loops, each send binary
 * and JSON infer requests (answered by the native infer route from every loop) and control-plane
 * requests (handed to JS), all answered right; the loops are threads named gebe-http; a stop with
 * requests sent on every connection answers each of them.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NativeHttpFrontend } from '../../../../src/core/server/http/native-frontend.js';
import { RawClient, post, type RawAnswer } from '../helpers/raw-client.js';
import { mnistRepository, startRealServer, type RealServer } from './helpers.js';

const THREADS = 4;
const CONNECTIONS = 32;

/** Threads of this process named gebe-http. */
function httpLoopThreads(): number {
  let count = 0;
  for (const task of readdirSync('/proc/self/task')) {
    try {
      if (readFileSync(`/proc/self/task/${task}/comm`, 'utf8').trim() === 'gebe-http') count++;
    } catch {
      // the thread ended while we looked
    }
  }
  return count;
}

async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 5000 && !check(); i++) await new Promise((r) => setTimeout(r, 1));
}

const rows = 2;
const pixels = Float32Array.from({ length: rows * 784 }, (_, i) => ((i * 31) % 256) / 255);
const header = Buffer.from(JSON.stringify({ inputs: [{ name: 'image', datatype: 'FP32', shape: [rows, 1, 28, 28], parameters: { binary_data_size: pixels.byteLength } }], outputs: [{ name: 'logits', parameters: { binary_data: true } }] }));
const binaryBody = Buffer.concat([header, Buffer.from(pixels.buffer)]);
const binaryRequest = Buffer.concat([Buffer.from(`POST /v2/models/mnist/infer HTTP/1.1\r\nHost: t\r\nInference-Header-Content-Length: ${header.byteLength}\r\nContent-Length: ${binaryBody.byteLength}\r\n\r\n`), binaryBody]);
const jsonRequest = post('/v2/models/mnist/infer', JSON.stringify({ inputs: [{ name: 'image', datatype: 'FP32', shape: [rows, 1, 28, 28], data: Array.from(pixels) }] }));
const readyRequest = 'GET /v2/health/ready HTTP/1.1\r\nHost: t\r\n\r\n';
const metadataRequest = 'GET /v2/models/mnist HTTP/1.1\r\nHost: t\r\n\r\n';
/** One round on a connection: what it sends, in order. */
const ROUND: Array<string | Buffer> = [binaryRequest, jsonRequest, readyRequest, metadataRequest];

/**
 * The same inference answer: the same JSON (outputs, names, shapes) and logits equal but for float
 * rounding, which depends on the batch the scheduler made of concurrent requests.
 */
function expectSameInference(a: RawAnswer, expected: RawAnswer): void {
  const split = (r: RawAnswer): { json: { outputs: Array<{ data?: number[] }> }; logits: number[] } => {
    const length = Number(/\r\nInference-Header-Content-Length: (\d+)/i.exec(r.headers)?.[1] ?? r.raw.byteLength);
    const json = JSON.parse(r.raw.subarray(0, length).toString('utf8')) as { outputs: Array<{ data?: number[] }> };
    const binary = r.raw.subarray(length);
    const logits = binary.byteLength > 0 ? Array.from(new Float32Array(binary.buffer.slice(binary.byteOffset, binary.byteOffset + binary.byteLength))) : json.outputs[0]!.data!;
    for (const o of json.outputs) delete o.data;
    return { json, logits };
  };
  const got = split(a);
  const want = split(expected);
  expect(got.json).toEqual(want.json);
  expect(got.logits).toHaveLength(want.logits.length);
  got.logits.forEach((v, k) => expect(v).toBeCloseTo(want.logits[k]!, 4));
}

let s: RealServer;
let threadsBefore: number;
let stopped: Promise<void> | undefined;

beforeAll(async () => {
  threadsBefore = httpLoopThreads();
  s = await startRealServer(mnistRepository(), 'none', [], undefined, { httpThreads: THREADS, enableGrpc: false, enableMetrics: false });
});
afterAll(async () => {
  await (stopped ?? s?.stop());
});

describe('native HTTP front end with --http-thread-count 4', () => {
  it('runs four loop threads named gebe-http', async () => {
    // Each loop names its thread as it starts.
    await until(() => httpLoopThreads() >= threadsBefore + THREADS);
    expect(httpLoopThreads()).toBe(threadsBefore + THREADS);
  });

  it('answers infer (binary and JSON, natively) and control-plane requests on 32 keep-alive connections over several loops', async () => {
    const front = s.server.http as NativeHttpFrontend;
    // The answers one connection gets, to compare every other connection's with.
    const reference = new RawClient(Number(new URL(s.http).port));
    for (const request of ROUND) await reference.send(request);
    await reference.waitFor(ROUND.length);
    reference.destroy();
    expect(reference.answers.map((a) => a.status)).toEqual([200, 200, 200, 200]);
    expect(reference.answers[0]!.headers).toMatch(/\r\nInference-Header-Content-Length: \d+/i);
    expect(JSON.parse(reference.answers[1]!.body).outputs[0]).toMatchObject({ name: 'logits', datatype: 'FP32', shape: [rows, 10] });
    expect(JSON.parse(reference.answers[3]!.body)).toMatchObject({ name: 'mnist' });

    const acceptedBefore = front.accepted;
    const forwardedBefore = front.forwarded;
    const clients = Array.from({ length: CONNECTIONS }, () => new RawClient(Number(new URL(s.http).port)));
    const rounds = 3;
    await Promise.all(clients.map(async (c) => {
      await c.connected;
      for (let round = 0; round < rounds; round++) {
        for (const request of ROUND) {
          await c.send(request);
          await c.waitFor(c.answers.length + 1);
        }
      }
    }));
    for (const c of clients) {
      expect(c.answers).toHaveLength(rounds * ROUND.length);
      c.answers.forEach((a, i) => {
        const expected = reference.answers[i % ROUND.length]!;
        expect(a.status).toBe(200);
        if (i % ROUND.length < 2) expectSameInference(a, expected);
        else expect(a.raw.equals(expected.raw)).toBe(true);
      });
      c.destroy();
    }
    const total = CONNECTIONS * rounds * ROUND.length;
    expect(front.accepted - acceptedBefore).toBe(total);
    // Only the control plane went to JS: every loop's infer requests were answered natively.
    expect(front.forwarded - forwardedBefore).toBe(CONNECTIONS * rounds * 2);
    const byLoop = front.acceptedByLoop;
    expect(byLoop).toHaveLength(THREADS);
    expect(byLoop.filter((n) => n > 0).length).toBeGreaterThan(1);
    expect(byLoop.reduce((a, b) => a + b, 0)).toBe(front.accepted);
  });

  it('answers every request sent before the stop, on every loop, then ends all four threads', async () => {
    const front = s.server.http as NativeHttpFrontend;
    const clients = Array.from({ length: CONNECTIONS }, () => new RawClient(Number(new URL(s.http).port)));
    // Each connection is open on its loop (answered once) before the stop: one still in the
    // kernel's accept queue when its loop stops listening would be reset, as with one loop.
    await Promise.all(clients.map(async (c) => {
      await c.send(readyRequest);
      await c.waitFor(1);
    }));
    const byLoopBefore = front.acceptedByLoop;
    // Handed to the kernel before the stop begins: each is answered (with Connection: close if the
    // stop came first; the drain test times that with a slow model), then the connection closes.
    await Promise.all(clients.map((c, i) => c.send(i % 2 === 0 ? binaryRequest : jsonRequest)));
    stopped = s.stop();
    await Promise.all(clients.map((c) => c.waitClosed()));
    await stopped;
    for (const c of clients) {
      expect(c.answers.map((a) => a.status)).toEqual([200, 200]);
    }
    expect(front.accepted).toBe(front.answered);
    expect(front.acceptedByLoop.filter((n, i) => n > byLoopBefore[i]!).length).toBeGreaterThan(1);
    expect(httpLoopThreads()).toBe(threadsBefore);
  });
});
