/**
 * The shutdown contract, counted on raw sockets for both HTTP front ends (the native one with one
 * and with four loop threads): every request whose first byte was sent before the stop gets
 * exactly one answer — requests in flight, requests sent on idle keep-alive connections right at
 * the stop, and requests whose body is still arriving — each with Connection: close; then the
 * connections close. gRPC: calls running at the stop, and calls
 * sent at the moment of the stop (crossing its GOAWAY), are answered.
 */
import { describe, expect, it } from 'vitest';
import { NativeHttpFrontend } from '../../../../src/core/server/http/native-frontend.js';
import { RawClient, post } from '../helpers/raw-client.js';
import { startTestServer } from '../helpers/test-server.js';

const body = JSON.stringify({ inputs: [
  { name: 'INPUT0', datatype: 'FP32', shape: [1, 4], data: [1, 2, 3, 4] },
  { name: 'INPUT1', datatype: 'FP32', shape: [1, 4], data: [1, 2, 3, 4] },
] });

// The native front end also with four loop threads (--http-thread-count 4): each loop drains its own connections.
const FRONTENDS = [
  { name: 'native', frontend: 'native', threads: 1 },
  { name: 'native (4 loop threads)', frontend: 'native', threads: 4 },
  { name: 'node', frontend: 'node', threads: 1 },
] as const;

describe.each(FRONTENDS)('$name front end drain', ({ frontend, threads }) => {
  it('answers every request sent before the stop exactly once, then closes', async () => {
    const t = await startTestServer({ server: { httpFrontend: frontend, httpThreads: threads } });
    const port = Number(new URL(t.http).port);
    const idle = Array.from({ length: 16 }, () => new RawClient(port));
    const inflight = Array.from({ length: 8 }, () => new RawClient(port));
    const partial = Array.from({ length: 8 }, () => new RawClient(port));
    const all = [...idle, ...inflight, ...partial];
    await Promise.all(all.map((c) => c.connected));
    // Every connection has answered one request: keep-alive and idle now.
    await Promise.all(all.map(async (c) => {
      await c.send(post('/v2/models/simple/infer', body));
      await c.waitFor(1);
    }));
    for (const m of t.models.values()) m.delayMs = 50;
    await Promise.all(inflight.map((c) => c.send(post('/v2/models/simple/infer', body))));
    const half = Math.floor(body.length / 2);
    await Promise.all(partial.map((c) => c.send(`POST /v2/models/simple/infer HTTP/1.1\r\nHost: t\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, half)}`)));
    while (t.server.http!.inFlightCount < inflight.length) await new Promise((r) => setTimeout(r, 2));
    // Sent (handed to the kernel) before the stop begins.
    await Promise.all(idle.map((c) => c.send(post('/v2/models/simple/infer', body))));
    const stopped = t.server.stop(5000);
    await new Promise((r) => setTimeout(r, 30));
    await Promise.all(partial.map((c) => c.send(body.slice(half))));
    await stopped;
    await Promise.all(all.map((c) => c.waitClosed()));
    for (const c of all) {
      expect(c.answers.map((a) => a.status)).toEqual([200, 200]);
      expect(c.answers[1]!.headers).toMatch(/\r\nConnection: close/i);
    }
    expect(t.server.http!.accepted).toBe(t.server.http!.answered);
    if (threads > 1) {
      // The kernel spread the 32 connections over the loops: the stop found requests on more than one.
      const byLoop = (t.server.http as NativeHttpFrontend).acceptedByLoop;
      expect(byLoop).toHaveLength(threads);
      expect(byLoop.filter((n) => n > 0).length).toBeGreaterThan(1);
      expect(byLoop.reduce((a, b) => a + b, 0)).toBe(t.server.http!.accepted);
    }
  });
});

describe('gRPC drain', () => {
  it('finishes calls running at the stop, then refuses new ones', async () => {
    const { grpcClient, call } = await import('../helpers/grpc-client.js');
    const t = await startTestServer();
    const client = grpcClient(t.grpc);
    const f32 = (...v: number[]) => Buffer.from(new Float32Array(v).buffer);
    const request = {
      model_name: 'simple',
      inputs: [{ name: 'INPUT0', datatype: 'FP32', shape: [1, 4] }, { name: 'INPUT1', datatype: 'FP32', shape: [1, 4] }],
      raw_input_contents: [f32(1, 2, 3, 4), f32(1, 2, 3, 4)],
    };
    await call(client, 'ModelInfer', request);  // connected
    for (const m of t.models.values()) m.delayMs = 100;
    // Counts calls that reached the service: the stop comes once all 8 run.
    let arrived = 0;
    const infer = t.server.service.infer.bind(t.server.service);
    t.server.service.infer = (...args: Parameters<typeof infer>) => (arrived++, infer(...args));
    const running = Array.from({ length: 8 }, () => call(client, 'ModelInfer', request).then(() => 'ok', (e: Error) => e.message));
    while (arrived < 8) await new Promise((r) => setTimeout(r, 2));
    const stopped = t.server.stop(5000);
    expect(await Promise.all(running)).toEqual(Array(8).fill('ok'));
    await stopped;
    await expect(call(client, 'ModelInfer', request)).rejects.toThrow(/UNAVAILABLE/);
    client.close();
  });

  it('answers calls sent on an open connection at the moment of the stop, crossing its GOAWAY', async () => {
    const { grpcClient, call } = await import('../helpers/grpc-client.js');
    const t = await startTestServer();
    const client = grpcClient(t.grpc);
    expect(await call(client, 'ServerLive', {})).toEqual({ live: true }); // connected
    const stopped = t.server.stop(5000);
    // Written to the socket in the same turn as the server's GOAWAY: they cross on the wire.
    const late = await Promise.all(Array.from({ length: 8 }, () => call(client, 'ServerLive', {}).then(() => 'ok', (e: Error) => e.message)));
    await stopped;
    expect(late).toEqual(Array(8).fill('ok'));
    await expect(call(client, 'ServerLive', {})).rejects.toThrow(/UNAVAILABLE/);
    client.close();
  });
});
