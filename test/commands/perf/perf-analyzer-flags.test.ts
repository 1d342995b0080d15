/**
 * A perf_analyzer command line runs as it is: gebe perf takes perf_analyzer's short spellings of
 * the flags it acts on (-p, -x, -l) and its tensor formats over HTTP, and accepts the flags about
 * what it does differently or does not have (sync/async mode, GPU metrics, binary search), naming
 * them with why on stderr.
 */
import { describe, expect, it } from 'vitest';
import { main } from '../../../src/cli.js';
import { memoryIO } from '../../../src/io.js';
import { parsePerfFlags } from '../../../src/commands/perf/options.js';
import { IGNORED_PERF_ANALYZER_FLAGS } from '../../../src/commands/perf/perf-analyzer-flags.js';
import { startPerfServer } from '../../helpers/perf-server.js';
import { writePerfRepository } from '../../helpers/perf-repository.js';
import { mkdtempSync } from 'node:fs';
import net from 'node:net';
import { encodeBinaryInferRequest, encodeHttpInferRequest } from '../../../src/core/kserve/client/http-binary.js';
import { HttpInferClient } from '../../../src/core/kserve/client/http-load-client.js';
import { tmpdir } from 'node:os';
import path from 'node:path';

describe("perf_analyzer's command line", () => {
  it('runs against a real server, -p -x -l taken, the rest named on stderr with why', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'gebe-pa-flags-'));
    const server = await startPerfServer(writePerfRepository(dir));
    try {
      const io = memoryIO({ cwd: dir });
      const code = await main(['node', 'gebe', 'perf', '-m', 'trivial', '-x', '1', '-u', server.http, '-a', '--max-threads', '4', '-v', '-z',
        '--binary-search', '-l', '50', '--service-kind', 'triton', '--collect-metrics', '--metrics-url', 'localhost:8002/metrics',
        '--serial-sequences', '--num-of-sequences', '4',
        '-p', '100', '-s', '1000', '-r', '3', '--concurrency-range', '1:2', '--client-threads', '0', '--json'], io);
      expect([code, io.err().match(/error.*/)?.[0]]).toEqual([0, undefined]);
      const report = JSON.parse(io.out()) as { model: { version: string }; settings: { measurementIntervalMs: number }; rows: unknown[] };
      expect([report.model.version, report.settings.measurementIntervalMs, report.rows.length]).toEqual(['1', 100, 2]);
      const warning = io.err().split('\n').find((l) => l.startsWith('warning: perf_analyzer flags that gebe perf accepts without effect: '))!;
      for (const f of ['--async', '--max-threads', '-v', '-z', '--binary-search', '--service-kind', '--collect-metrics', '--metrics-url', '--serial-sequences', '--num-of-sequences']) {
        const listed = IGNORED_PERF_ANALYZER_FLAGS.find((x) => x.flag === f || x.flag.endsWith(` ${f}`))!;
        expect(warning).toContain(`${f} (${listed.why})`);
      }
    } finally {
      await server.stop();
    }
  });

  it('refuses a --service-kind gebe perf does not measure, and keeps the ignored flags out of --help', async () => {
    expect(() => parsePerfFlags({ model: 'm', url: 'h:1', serviceKind: 'openai' }, '/')).toThrow(
      '--service-kind openai: gebe perf measures a KServe v2 server (triton) with -u, or the model in process with --model-repository');
    const io = memoryIO();
    await main(['node', 'gebe', 'perf', '--help'], io);
    for (const f of ['--async', '--sync', '--max-threads', '--binary-search', '--collect-metrics', '--service-kind']) expect(io.out()).not.toContain(f);
    expect(io.out()).toContain('-p, --measurement-interval');
    for (const f of ['--request-intervals <file>', '--string-length <n>', '--string-data <string>', '--request-parameter <name:value:type>']) expect(io.out()).toContain(f);
  });
});

describe('--input-tensor-format / --output-tensor-format', () => {
  it('encodes inputs as JSON data and asks for JSON outputs; a JSON body goes as plain JSON, without Inference-Header-Content-Length', async () => {
    const inputs = [{ name: 'X', datatype: 'FP32' as const, shape: [1, 2], data: new Uint8Array(new Float32Array([1.5, -2]).buffer) }];
    const json = encodeHttpInferRequest(inputs, ['Y'], { input: 'json', output: 'json' });
    expect(json.body.toString()).toBe('{"inputs":[{"name":"X","shape":[1,2],"datatype":"FP32","data":[1.5,-2]}],"outputs":[{"name":"Y","parameters":{"binary_data":false}}]}');
    expect(json.headerLength).toBe(json.body.byteLength);
    // Binary inputs and outputs: the bytes the binary encoder has always written.
    expect(encodeHttpInferRequest(inputs, ['Y'], { input: 'binary', output: 'binary' })).toEqual(encodeBinaryInferRequest(inputs, ['Y']));

    const seen: string[] = [];
    const raw = net.createServer((socket) => socket.on('data', (chunk) => {
      seen.push(chunk.toString('latin1'));
      socket.write('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}');
    }));
    await new Promise<void>((resolve) => raw.listen(0, '127.0.0.1', resolve));
    const client = new HttpInferClient(`http://127.0.0.1:${(raw.address() as net.AddressInfo).port}`, '/v2/models/m/infer', [json]);
    try {
      await client.infer();
    } finally {
      await client.close();
      raw.close();
    }
    const request = seen.join('');
    expect(request).toContain('Content-Type: application/json\r\n');
    expect(request).not.toContain('Inference-Header-Content-Length');
    expect(request.endsWith(`\r\n\r\n${json.body.toString()}`)).toBe(true);
  });

  it('measures a real server with JSON tensors, and says where the flags do not apply', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'gebe-pa-json-'));
    const server = await startPerfServer(writePerfRepository(dir));
    try {
      const io = memoryIO({ cwd: dir });
      const code = await main(['node', 'gebe', 'perf', '-m', 'trivial', '-u', server.http, '--input-tensor-format', 'json', '--output-tensor-format', 'json',
        '-p', '100', '-s', '1000', '-r', '3', '--client-threads', '1', '--json'], io);
      expect([code, io.err().match(/error.*/)?.[0]]).toEqual([0, undefined]);
      expect((JSON.parse(io.out()) as { target: string }).target).toMatch(/\(HTTP, json inputs, json outputs\)$/);
    } finally {
      await server.stop();
    }
    const usage = (flags: object) => () => parsePerfFlags({ model: 'm', ...flags }, '/');
    expect(usage({ url: 'h:1', protocol: 'grpc', inputTensorFormat: 'json' })).toThrow('--input-tensor-format is for HTTP (-i http): gRPC carries tensors in its messages');
    expect(usage({ url: 'h:1', outputTensorFormat: 'xml' })).toThrow(/--output-tensor-format/);
    expect(usage({ url: 'h:1', inputTensorFormat: 'json', sharedMemory: 'system' })).toThrow('--input-tensor-format json and --shared-memory system: with shared memory the tensors are in the shared region, not in the requests');
    expect(usage({ modelRepository: '.', inputTensorFormat: 'json' })).toThrow('--input-tensor-format is how tensors travel to a server over HTTP: add -u host:port');
  });
});
