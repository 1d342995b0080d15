/**
 * Triton's restricted APIs over HTTP (both front ends) and gRPC, and TLS with real clients: a
 * self-signed certificate made with the openssl CLI, node:https and @grpc/grpc-js over TLS, with
 * and without client certificates.
 */
import * as grpc from '@grpc/grpc-js';
import https from 'node:https';
import { afterAll, describe, expect, it } from 'vitest';
import { serviceDefinition } from '../../../../src/core/kserve/grpc-proto.js';
import { parseRestrictions } from '../../../../src/core/server/restricted-api.js';
import { call, callError, grpcClient, type GrpcClient } from '../helpers/grpc-client.js';
import { startTestServer } from '../helpers/test-server.js';
import { makeTestCertificates } from '../helpers/tls-certs.js';

const restrictions = parseRestrictions(['model-repository,statistics:admin-key=s3cret', 'inference:infer-key=go'], '--http-restricted-api');
const inferBody = JSON.stringify({ inputs: [
  { name: 'INPUT0', datatype: 'FP32', shape: [1, 4], data: [1, 2, 3, 4] },
  { name: 'INPUT1', datatype: 'FP32', shape: [1, 4], data: [1, 2, 3, 4] },
] });

describe.each(['native', 'node'] as const)('--http-restricted-api (%s front end)', (frontend) => {
  it('answers 403 with Triton\'s wording without the header, serves with it, and leaves other APIs open', async () => {
    const t = await startTestServer({ mode: 'explicit', load: ['simple'], server: { httpFrontend: frontend, httpRestrictions: restrictions } });
    try {
      const denied = await fetch(`${t.http}/v2/models/stats`);
      expect(denied.status).toBe(403);
      expect(await denied.json()).toEqual({ error: "This API is restricted, expecting header 'admin-key'" });
      expect((await fetch(`${t.http}/v2/models/stats`, { headers: { 'admin-key': 'wrong' } })).status).toBe(403);
      expect((await fetch(`${t.http}/v2/models/stats`, { headers: { 'Admin-Key': 's3cret' } })).status).toBe(200);
      expect((await fetch(`${t.http}/v2/repository/index`, { method: 'POST' })).status).toBe(403);
      const infer = (headers: Record<string, string>) => fetch(`${t.http}/v2/models/simple/infer`, { method: 'POST', body: inferBody, headers });
      expect((await infer({})).status).toBe(403);
      expect((await infer({ 'infer-key': 'go' })).status).toBe(200);
      expect((await fetch(`${t.http}/v2/health/ready`)).status).toBe(200);
      expect((await fetch(`${t.http}/v2`)).status).toBe(200);
    } finally {
      await t.stop();
    }
  });
});

describe('--grpc-restricted-protocol', () => {
  it('answers UNAVAILABLE with Triton\'s wording without triton-grpc-protocol-<key>, serves with it', async () => {
    const t = await startTestServer({ server: { grpcRestrictions: restrictions } });
    const client = grpcClient(t.grpc);
    try {
      const err = await callError(client, 'ModelStatistics', { name: '' });
      expect(err.code).toBe(grpc.status.UNAVAILABLE);
      expect(err.details).toBe("This protocol is restricted, expecting header 'triton-grpc-protocol-admin-key'");
      const md = new grpc.Metadata();
      md.set('triton-grpc-protocol-admin-key', 's3cret');
      const stats = await new Promise<any>((resolve, reject) => client.ModelStatistics!({ name: '' }, md, (e: Error | null, r: unknown) => (e ? reject(e) : resolve(r))));
      expect(Array.isArray(stats.model_stats)).toBe(true);
      expect((await callError(client, 'RepositoryIndex', {})).code).toBe(grpc.status.UNAVAILABLE);
      expect((await call(client, 'ServerLive', {})).live).toBe(true);
      // A stream of a restricted API ends with the same status.
      const stream = client.ModelStreamInfer!();
      const error = await new Promise<grpc.ServiceError>((resolve) => stream.on('error', resolve));
      expect(error.code).toBe(grpc.status.UNAVAILABLE);
      expect(error.details).toBe("This protocol is restricted, expecting header 'triton-grpc-protocol-infer-key'");
    } finally {
      client.close();
      await t.stop();
    }
  });
});

describe('TLS', () => {
  const certs = makeTestCertificates();
  const pem = certs.pem;
  afterAll(() => certs.remove());

  it('serves HTTPS through node:https with the same routes (the native front end steps aside)', async () => {
    const t = await startTestServer({ server: { httpFrontend: 'native', httpTls: { cert: pem('server.pem'), key: pem('server.key') } } });
    try {
      const port = Number(new URL(t.http).port);
      const get = (p: string) => new Promise<{ status: number; body: string }>((resolve, reject) => {
        https.get({ host: '127.0.0.1', port, path: p, ca: pem('ca.pem') }, (res) => {
          let body = '';
          res.on('data', (d) => (body += d));
          res.on('end', () => resolve({ status: res.statusCode!, body }));
        }).on('error', reject);
      });
      expect((await get('/v2/health/live')).status).toBe(200);
      expect(JSON.parse((await get('/v2')).body).name).toBeDefined();
      // A plain-HTTP client gets no answer it could mistake for one.
      await expect(fetch(`${t.http}/v2/health/live`)).rejects.toThrow();
    } finally {
      await t.stop();
    }
  });

  it('serves gRPC over TLS, and with --grpc-use-ssl-mutual only to clients with a certificate', async () => {
    const Ctor = grpc.makeGenericClientConstructor(serviceDefinition('inference.GRPCInferenceService', 'client'), 'inference');
    for (const mutual of [false, true]) {
      const t = await startTestServer({ server: { grpcTls: { cert: pem('server.pem'), key: pem('server.key'), rootCert: mutual ? pem('ca.pem') : undefined, mutual } } });
      const port = t.grpc.split(':')[1];
      const withCert = new Ctor(`localhost:${port}`, grpc.credentials.createSsl(pem('ca.pem'), pem('client.key'), pem('client.pem'))) as GrpcClient;
      const without = new Ctor(`localhost:${port}`, grpc.credentials.createSsl(pem('ca.pem'))) as GrpcClient;
      const plain = new Ctor(`localhost:${port}`, grpc.credentials.createInsecure()) as GrpcClient;
      try {
        expect((await call(withCert, 'ServerLive', {})).live).toBe(true);
        if (mutual) expect((await callError(without, 'ServerLive', {})).code).toBe(grpc.status.UNAVAILABLE);
        else expect((await call(without, 'ServerLive', {})).live).toBe(true);
        expect((await callError(plain, 'ServerLive', {})).code).toBe(grpc.status.UNAVAILABLE);
      } finally {
        for (const c of [withCert, without, plain]) c.close();
        await t.stop();
      }
    }
  });
});
