/**
 * Triton's --http-header-forward-pattern and --grpc-header-forward-pattern on a real server: the
 * headers (gRPC metadata) whose names match reach a Python model as string request parameters,
 * over HTTP infer, HTTP generate and gRPC ModelInfer; others, and the parameters gebe reads
 * itself, do not.
 */
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as grpcJs from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { grpcClient, type GrpcClient } from '../helpers/grpc-client.js';
import { pythonForTests } from '../../../helpers/python-env.js';
import { startRealServer, writeParametersModel, type RealServer } from './helpers.js';

const python = pythonForTests();
let server: RealServer;
let grpc: GrpcClient;

describe.skipIf(!python.available)('header forwarding (as Triton)', () => {
  beforeAll(async () => {
    const repo = mkdtempSync(path.join(os.tmpdir(), 'gebe-forward-'));
    writeParametersModel(repo);
    server = await startRealServer(repo, 'none', [], undefined, { httpHeaderForwardPattern: /^x-tenant|trace/, grpcHeaderForwardPattern: /^x-tenant/ });
    grpc = grpcClient(server.grpc);
  });
  afterAll(async () => {
    grpc?.close();
    await server?.stop();
  });

  const input = { name: 'IN', datatype: 'INT32', shape: [1] };

  it('forwards matching HTTP headers to infer and generate requests', async () => {
    const headers = { 'Content-Type': 'application/json', 'X-Tenant-Id': 'acme', 'X-Request-Trace': 't1', 'X-Other': 'no', priority: '5' };
    const infer = await fetch(`${server.http}/v2/models/params/infer`, { method: 'POST', headers, body: JSON.stringify({ parameters: { mine: 1 }, inputs: [{ ...input, data: [0] }] }) });
    const answer = await infer.json() as { outputs: Array<{ data: string[] }> };
    expect(JSON.parse(answer.outputs[0]!.data[0]!)).toEqual({ mine: 1, 'x-tenant-id': 'acme', 'x-request-trace': 't1' });
    const generate = await fetch(`${server.http}/v2/models/params/generate`, { method: 'POST', headers, body: JSON.stringify({ IN: 0 }) });
    expect(JSON.parse(((await generate.json()) as { P: string }).P)).toEqual({ 'x-tenant-id': 'acme', 'x-request-trace': 't1' });
  });

  it('forwards matching gRPC metadata to ModelInfer', async () => {
    const metadata = new grpcJs.Metadata();
    metadata.set('x-tenant-id', 'acme');
    metadata.set('x-request-trace', 'not for gRPC');
    const reply = await new Promise<{ raw_output_contents: Buffer[] }>((resolve, reject) => {
      (grpc as unknown as Record<string, Function>).ModelInfer!({ model_name: 'params', inputs: [input], raw_input_contents: [Buffer.alloc(4)] }, metadata,
        (err: Error | null, r: { raw_output_contents: Buffer[] }) => (err ? reject(err) : resolve(r)));
    });
    const bytes = reply.raw_output_contents[0]!;
    expect(JSON.parse(bytes.subarray(4, 4 + bytes.readUInt32LE(0)).toString())).toEqual({ 'x-tenant-id': 'acme' });
  });
});
