/**
 * How the client commands reach a server, with perf_analyzer's flags. `-H Header:Value`: infer,
 * warmup, perf and compare reach a server whose every API wants a header (gebe serve's
 * --http-restricted-api and --grpc-restricted-protocol, as Triton's), over HTTP and gRPC, perf
 * from its own thread and from worker threads; without the header the same commands are refused.
 * TLS: the same commands reach gebe serve's HTTPS and gRPC-over-TLS ports (a test CA), mutual TLS
 * with a client certificate, and say what to pass when the CA is not trusted. And the flags' checks.
 */
import { writeFileSync } from 'node:fs';
import { createPrivateKey, generateKeyPairSync, X509Certificate } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseRestrictions } from '../../src/core/server/restricted-api.js';
import { mnistRepository, startRealServer, type RealServer } from '../core/server/e2e/helpers.js';
import { runGebe } from '../helpers/gebe-cli.js';
import { makeTestCertificates, type TestCertificates } from '../core/server/helpers/tls-certs.js';

const APIS = 'health,metadata,inference,model-config,statistics';
const DIGIT = path.resolve(import.meta.dirname, '../../templates/mnist/samples/digit-7.png');
const HTTP_HEADER = ['-H', 'X-Token: s3cret'];
const GRPC_HEADER = ['-H', 'triton-grpc-protocol-token: s3cret'];
const PERF = ['--concurrency', '2', '--measurement-mode', 'count_windows', '--measurement-request-count', '20', '-r', '3', '-s', '100', '--json'];

describe('-H against a server that wants a header on every API', () => {
  let server: RealServer;
  beforeAll(async () => {
    server = await startRealServer(mnistRepository(), 'none', [], undefined, {
      httpRestrictions: parseRestrictions([`${APIS}:x-token=s3cret`], '--http-restricted-api'),
      grpcRestrictions: parseRestrictions([`${APIS}:token=s3cret`], '--grpc-restricted-protocol'),
    });
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('gebe infer: over HTTP and gRPC with the header, refused without it', async () => {
    const http = await runGebe(['infer', '-m', 'mnist', '-u', server.http, ...HTTP_HEADER, '--input', DIGIT, '--json']);
    expect(http.err).toBe('');
    expect(http.code).toBe(0);
    const grpc = await runGebe(['infer', '-m', 'mnist', '-u', server.grpc, '-i', 'grpc', ...GRPC_HEADER, '--input', DIGIT, '--json']);
    expect(grpc.err).toBe('');
    expect(JSON.parse(grpc.out)).toEqual(JSON.parse(http.out));
    const without = await runGebe(['infer', '-m', 'mnist', '-u', server.http, '--input', DIGIT]);
    expect(without.code).toBe(2);
    expect(without.err).toMatch(/403/);
  });

  it('gebe perf: every request carries it, from perf\'s thread and from worker threads, HTTP and gRPC', async () => {
    for (const [protocol, header] of [[[], HTTP_HEADER], [['-i', 'grpc'], GRPC_HEADER]] as const) {
      const url = protocol.length > 0 ? server.grpc : server.http;
      for (const threads of ['0', '1']) {
        const r = await runGebe(['perf', '-m', 'mnist', '-u', url, ...protocol, ...header, '--client-threads', threads, ...PERF]);
        expect(r.code, r.err).toBe(0);
        const rows = (JSON.parse(r.out) as { rows: Array<{ throughput: number; errors?: number }> }).rows;
        expect(rows[0]!.throughput).toBeGreaterThan(0);
      }
    }
    const without = await runGebe(['perf', '-m', 'mnist', '-u', server.grpc, '-i', 'grpc', ...PERF]);
    expect(without.code).toBe(2);
    // perf_analyzer's --grpc-compression-algorithm: the requests go compressed, and still carry the header.
    for (const algorithm of ['gzip', 'deflate']) {
      const r = await runGebe(['perf', '-m', 'mnist', '-u', server.grpc, '-i', 'grpc', ...GRPC_HEADER, '--grpc-compression-algorithm', algorithm, '--client-threads', '1', ...PERF]);
      expect(r.code, r.err).toBe(0);
    }
  });

  it('gebe warmup -u and gebe compare --against carry it too', async () => {
    const warm = await runGebe(['warmup', '-u', server.grpc, '-i', 'grpc', ...GRPC_HEADER, '-m', 'mnist', '--runs', '2', '--json']);
    expect(warm.code, warm.err).toBe(0);
    const repo = mnistRepository();
    const compare = await runGebe(['compare', '-m', 'mnist', '--model-repository', repo, '--against', server.http, ...HTTP_HEADER, '--json']);
    expect(compare.code, compare.err).toBe(0);
  });
});

describe('-H checks', () => {
  it('wants Header:Value, a header name, and a value that keeps to one line', async () => {
    const cases: Array<[string[], RegExp]> = [
      [['infer', '-m', 'm', '-u', 'localhost:1', '-H', 'no-colon'], /-H "no-colon": expected Header:Value/],
      [['infer', '-m', 'm', '-u', 'localhost:1', '-H', 'bad name: x'], /"bad name" is not a header name/],
      [['perf', '-m', 'm', '-u', 'localhost:1', '-H', 'Content-Length: 5'], /-H "Content-Length: 5": gebe writes Content-Length itself; it cannot be set/],
      [['infer', '-m', 'm', '-u', 'localhost:1', '-H', 'X-Ok: a\r\nInjected: 1'], /the value may hold printable ASCII characters and tabs only/],
      [['infer', '-m', 'm', '-u', 'localhost:1', '-i', 'grpc', '-H', 'Key.bin-ary!: 1'], /not a gRPC metadata key/],
      [['infer', '-m', 'm', '-u', 'localhost:1', '-i', 'grpc', '-H', 'x-data-bin: 1'], /not a gRPC metadata key/],
      [['perf', '-m', 'm', '--model-repository', '.', '-H', 'X-Token: 1'], /-H\/--header is about a server's connection: add -u host:port/],
      [['infer', '-m', 'm', '--ssl-grpc-use-ssl'], /--ssl-grpc-use-ssl is about a server's connection: add -u host:port/],
      [['infer', '-m', 'm', '-u', 'localhost:1', '--ssl-grpc-use-ssl'], /--ssl-grpc-use-ssl is for gRPC \(-i grpc\); HTTP over TLS is an https:\/\/ URL/],
      [['infer', '-m', 'm', '-u', 'localhost:1', '-i', 'grpc', '--ssl-grpc-root-certifications-file', 'ca.pem'], /--ssl-grpc-root-certifications-file needs --ssl-grpc-use-ssl/],
      [['infer', '-m', 'm', '-u', 'localhost:1', '--ssl-https-verify-peer', '0'], /--ssl-https-verify-peer is for an https:\/\/ server; the server given is localhost:1/],
      [['infer', '-m', 'm', '-u', 'https://localhost:1', '--ssl-https-verify-host', '3'], /--ssl-https-verify-host 3: expected 0 or 1 or 2/],
      [['infer', '-m', 'm', '-u', 'https://localhost:1', '--ssl-https-ca-certificates-file', '/nonexistent/ca.pem'], /--ssl-https-ca-certificates-file \/nonexistent\/ca.pem: no such file/],
      [['infer', '-m', 'm', '-u', 'https://localhost:1', '--ssl-https-private-key-type', 'P12'], /--ssl-https-private-key-type P12: expected PEM or DER/],
      [['infer', '-m', 'm', '-u', 'localhost:1', '--grpc-compression-algorithm', 'gzip'], /--grpc-compression-algorithm compresses gRPC requests: add -i grpc/],
      [['infer', '-m', 'm', '-u', 'localhost:1', '-i', 'grpc', '--grpc-compression-algorithm', 'zstd'], /--grpc-compression-algorithm zstd: expected none, gzip or deflate/],
      [['compare', '-m', 'm', '--against', '1/model.om', '-H', 'X-Token: 1'], /add --against http:\/\/host:port or grpc:\/\/host:port/],
    ];
    for (const [args, message] of cases) {
      const r = await runGebe(args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.err).toMatch(message);
    }
  });
});

describe('TLS to gebe serve\'s HTTPS and gRPC-over-TLS ports', () => {
  let certs: TestCertificates;
  let server: RealServer;
  let dir: string;
  const file = (name: string) => path.join(dir, name);
  beforeAll(async () => {
    certs = makeTestCertificates();
    dir = path.join(os.tmpdir(), `gebe-tls-client-${process.pid}`);
    (await import('node:fs')).mkdirSync(dir, { recursive: true });
    for (const name of ['ca.pem', 'client.pem', 'client.key']) writeFileSync(file(name), certs.pem(name));
    server = await startRealServer(mnistRepository(), 'none', [], undefined, {
      httpTls: { cert: certs.pem('server.pem'), key: certs.pem('server.key') },
      grpcTls: { cert: certs.pem('server.pem'), key: certs.pem('server.key'), rootCert: certs.pem('ca.pem'), mutual: true },
    });
  });
  afterAll(async () => {
    await server?.stop();
    certs?.remove();
  });
  const https = () => server.http.replace(/^http:/, 'https:');
  const HTTPS_CA = () => ['--ssl-https-ca-certificates-file', file('ca.pem')];
  const GRPC_TLS = () => ['-i', 'grpc', '--ssl-grpc-use-ssl', '--ssl-grpc-root-certifications-file', file('ca.pem'),
    '--ssl-grpc-private-key-file', file('client.key'), '--ssl-grpc-certificate-chain-file', file('client.pem')];

  it('gebe infer over https:// and gRPC with mutual TLS, the same answer', async () => {
    const http = await runGebe(['infer', '-m', 'mnist', '-u', https(), ...HTTPS_CA(), '--input', DIGIT, '--json']);
    expect(http.err).toBe('');
    const grpc = await runGebe(['infer', '-m', 'mnist', '-u', server.grpc, ...GRPC_TLS(), '--input', DIGIT, '--json']);
    expect(grpc.err).toBe('');
    expect(JSON.parse(grpc.out)).toEqual(JSON.parse(http.out));
    // Not checking the certificate at all (curl -k): it answers too.
    const unchecked = await runGebe(['infer', '-m', 'mnist', '-u', https(), '--ssl-https-verify-peer', '0', '--input', DIGIT, '--json']);
    expect(JSON.parse(unchecked.out)).toEqual(JSON.parse(http.out));
  });

  it('takes the client certificate and key as DER files too (perf_analyzer\'s --ssl-https-*-type DER), and says when a file is not in its format', async () => {
    writeFileSync(file('client.der'), new X509Certificate(certs.pem('client.pem')).raw);
    writeFileSync(file('client.key.der'), createPrivateKey(certs.pem('client.key')).export({ format: 'der', type: 'pkcs8' }));
    const der = ['--ssl-https-client-certificate-file', file('client.der'), '--ssl-https-client-certificate-type', 'DER',
      '--ssl-https-private-key-file', file('client.key.der'), '--ssl-https-private-key-type', 'der'];
    const http = await runGebe(['infer', '-m', 'mnist', '-u', https(), ...HTTPS_CA(), ...der, '--input', DIGIT, '--json']);
    expect([http.code, http.err]).toEqual([0, '']);
    // A key that is not the certificate's fails in TLS's own words: the files were read.
    writeFileSync(file('other.key.der'), generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'der', type: 'pkcs1' }));
    const mismatch = await runGebe(['infer', '-m', 'mnist', '-u', https(), ...HTTPS_CA(), ...der.slice(0, 5), file('other.key.der'), '--ssl-https-private-key-type', 'DER', '--input', DIGIT]);
    expect(mismatch.code).toBe(2);
    expect(mismatch.err).toMatch(/key values mismatch/);
    writeFileSync(file('garbage.der'), Buffer.from([0x30, 0x03, 0x02, 0x01, 0x07]));
    const notDer = await runGebe(['infer', '-m', 'mnist', '-u', https(), '--ssl-https-client-certificate-file', file('garbage.der'), '--ssl-https-client-certificate-type', 'DER',
      '--ssl-https-private-key-file', file('garbage.der'), '--ssl-https-private-key-type', 'DER']);
    expect(notDer.err).toContain(`--ssl-https-client-certificate-file ${file('garbage.der')}: not a DER certificate`);
    const keyNotDer = await runGebe(['infer', '-m', 'mnist', '-u', https(), '--ssl-https-client-certificate-file', file('client.der'), '--ssl-https-client-certificate-type', 'DER',
      '--ssl-https-private-key-file', file('garbage.der'), '--ssl-https-private-key-type', 'DER']);
    expect(keyNotDer.err).toContain(`--ssl-https-private-key-file ${file('garbage.der')}: not a DER private key (PKCS#8, PKCS#1 or SEC1)`);
    const derAsPem = await runGebe(['infer', '-m', 'mnist', '-u', https(), '--ssl-https-client-certificate-file', file('client.der'), '--ssl-https-private-key-file', file('client.key')]);
    expect(derAsPem.err).toContain(`--ssl-https-client-certificate-file ${file('client.der')}: not a PEM file (no -----BEGIN line); for a DER file add --ssl-https-client-certificate-type DER`);
  });

  it('gebe perf over both, from its thread and from worker threads', async () => {
    for (const [url, tls] of [[https(), HTTPS_CA()], [server.grpc, GRPC_TLS()]] as const) {
      for (const threads of ['0', '1']) {
        const r = await runGebe(['perf', '-m', 'mnist', '-u', url, ...tls, '--client-threads', threads, ...PERF]);
        expect(r.code, r.err).toBe(0);
        expect((JSON.parse(r.out) as { rows: Array<{ throughput: number }> }).rows[0]!.throughput).toBeGreaterThan(0);
      }
    }
  });

  it('says to trust the CA when the server\'s certificate is not trusted; a gRPC server that wants a client certificate refuses one without', async () => {
    const untrusted = await runGebe(['infer', '-m', 'mnist', '-u', https(), '--input', DIGIT]);
    expect(untrusted.code).toBe(2);
    expect(untrusted.err).toMatch(/the TLS handshake with https:\/\/127\.0\.0\.1:\d+ failed/);
    expect(untrusted.err).toMatch(/--ssl-https-ca-certificates-file/);
    const noClientCert = await runGebe(['infer', '-m', 'mnist', '-u', server.grpc, '-i', 'grpc', '--ssl-grpc-use-ssl', '--ssl-grpc-root-certifications-file', file('ca.pem'), '--input', DIGIT]);
    expect(noClientCert.code).toBe(2);
  });
});

