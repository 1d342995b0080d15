/**
 * Triton's logging extension on a real server: GET/POST /v2/logging and gRPC LogSettings read and
 * change what the server logs while it runs; turning verbose logging on shows the requests the
 * native front ends answer (HTTP infer, gRPC ModelInfer) as well as those JS answers, and turning
 * it off stops them. Bad settings are refused whole, in one wording for both protocols.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../../../src/core/server/logger.js';
import { call, callError, grpcClient, type GrpcClient } from '../helpers/grpc-client.js';
import { getJson, postJson } from '../helpers/http-client.js';
import { mnistRepository, startRealServer, type RealServer } from './helpers.js';

const lines: string[] = [];
let server: RealServer;
let grpc: GrpcClient;

beforeAll(async () => {
  server = await startRealServer(mnistRepository(), 'none', [], createLogger({ write: (s: string) => lines.push(s) }));
  grpc = grpcClient(server.grpc);
});
afterAll(async () => {
  grpc?.close();
  await server?.stop();
});

const image = { name: 'image', datatype: 'FP32', shape: [1, 1, 28, 28] };
const inferHttp = () => postJson(`${server.http}/v2/models/mnist/infer`, { inputs: [{ ...image, data: new Array(784).fill(0) }] });
const inferGrpc = () => call(grpc, 'ModelInfer', { model_name: 'mnist', inputs: [image], raw_input_contents: [Buffer.alloc(784 * 4)] });
const verboseLines = () => lines.filter((l) => / V (http request|grpc call) /.test(l) && (l.includes('/infer') || l.includes('ModelInfer')));

/** Waits for the native routes' notes to be drained into log lines (every 200 ms). */
async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 50 && !check(); i++) await new Promise((r) => setTimeout(r, 50));
}

describe('the logging extension (GET/POST /v2/logging, gRPC LogSettings)', () => {
  it('answers the settings in Triton\'s names and lists "logging" among the extensions', async () => {
    expect(await getJson(`${server.http}/v2/logging`)).toEqual({
      status: 200,
      body: { log_file: '', log_info: true, log_warning: true, log_error: true, log_verbose_level: 0, log_format: 'ISO8601' },
    });
    expect((await getJson(`${server.http}/v2`)).body.extensions).toContain('logging');
  });

  it('turns verbose logging on and off while the server runs, natively answered requests included', async () => {
    await inferHttp();
    await inferGrpc();
    await new Promise((r) => setTimeout(r, 300));
    expect(verboseLines()).toEqual([]);

    const on = await postJson(`${server.http}/v2/logging`, { log_verbose_level: 1 });
    expect([on.status, on.body.log_verbose_level]).toEqual([200, 1]);
    expect((await inferHttp()).status).toBe(200);
    await inferGrpc();
    await until(() => verboseLines().length >= 2);
    expect(verboseLines().map((l) => l.replace(/^\S+ /, '').trim())).toEqual([
      'V http request method=POST url=/v2/models/mnist/infer route=native',
      'V grpc call method=/inference.GRPCInferenceService/ModelInfer route=native',
    ]);

    const off = await call(grpc, 'LogSettings', { settings: { log_verbose_level: { uint32_param: 0 }, log_info: { bool_param: false } } }) as { settings: Record<string, Record<string, unknown>> };
    expect(Object.fromEntries(Object.entries(off.settings).map(([k, v]) => [k, v[v.parameter_choice as string]]))).toEqual({
      log_file: '', log_info: false, log_warning: true, log_error: true, log_verbose_level: 0, log_format: 'ISO8601',
    });
    const before = lines.length;
    await inferHttp();
    await inferGrpc();
    await new Promise((r) => setTimeout(r, 300));
    expect(lines.slice(before)).toEqual([]);
    await postJson(`${server.http}/v2/logging`, { log_info: true, log_format: 'json' });
    expect((await getJson(`${server.http}/v2/logging`)).body).toMatchObject({ log_info: true, log_format: 'json' });
    await postJson(`${server.http}/v2/logging`, { log_format: 'default' });
  });

  it('refuses a bad setting whole, with the same words over HTTP and gRPC', async () => {
    const cases: Array<[Record<string, unknown>, Record<string, unknown>, string]> = [
      [{ log_verbose_level: -1 }, { log_verbose_level: { bool_param: true } }, "log setting 'log_verbose_level' must be an unsigned 32-bit integer, got "],
      [{ log_info: 'false' }, { log_info: { string_param: 'false' } }, "log setting 'log_info' must be a boolean, got \"false\""],
      [{ log_warnings: true }, { log_warnings: { bool_param: true } }, "unknown log setting 'log_warnings'; the settings are log_file, log_info, log_warning, log_error, log_verbose_level, log_format"],
      [{ log_file: '/etc/passwd' }, { log_file: { string_param: '/etc/passwd' } }, 'log file location can not be updated through network protocol (it is set at start with --log-file)'],
      [{ log_format: 'glog' }, { log_format: { string_param: 'glog' } }, 'invalid argument for --log_format, got: "glog"; use default, ISO8601, json'],
    ];
    for (const [json, settings, message] of cases) {
      // log_error: false first: refused requests must not apply it.
      const http = await postJson(`${server.http}/v2/logging`, { log_error: false, ...json });
      expect([http.status, http.body.error]).toEqual([400, expect.stringContaining(message)]);
      const rpc = await callError(grpc, 'LogSettings', { settings: { log_error: { bool_param: false }, ...settings } });
      expect([rpc.code, rpc.details]).toEqual([3, expect.stringContaining(message)]);
    }
    expect((await getJson(`${server.http}/v2/logging`)).body.log_error).toBe(true);
    const put = await fetch(`${server.http}/v2/logging`, { method: 'PUT' });
    expect([put.status, await put.json()]).toEqual([400, { error: 'PUT is not allowed on /v2/logging; use GET or POST' }]);
  });
});
