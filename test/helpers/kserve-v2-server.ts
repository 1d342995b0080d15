/**
 * A small but honest KServe v2 HTTP server for perf's client tests until they run against
 * `gebe serve`: real sockets on port 0, real binary-extension parsing, identity models that echo
 * their input, and statistics counted exactly as Triton's extension defines them.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeModel {
  name: string;
  maxBatchSize: number;
  inputs: Array<{ name: string; datatype: string; shape: number[] }>;
  ready?: boolean;
}

interface Stats {
  inference_count: number;
  execution_count: number;
  success: { count: number; ns: number };
  compute_infer: { count: number; ns: number };
}

export interface RunningServer {
  url: string;
  close(): Promise<void>;
  stats(model: string): Stats;
}

export async function startKserveServer(models: FakeModel[]): Promise<RunningServer> {
  const stats = new Map(models.map((m) => [m.name, { inference_count: 0, execution_count: 0, success: { count: 0, ns: 0 }, compute_infer: { count: 0, ns: 0 } }]));
  const byName = new Map(models.map((m) => [m.name, m]));
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const send = (status: number, body: unknown) => {
        const text = JSON.stringify(body);
        res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) });
        res.end(text);
      };
      const m = /^\/v2\/models\/([^/]+)(?:\/versions\/(\d+))?(\/ready|\/config|\/stats|\/infer)?$/.exec(req.url ?? '');
      if (req.url === '/v2/models/stats') {
        send(200, { model_stats: models.map((x) => ({ name: x.name, version: '1' })) });
        return;
      }
      const model = m ? byName.get(decodeURIComponent(m[1]!)) : undefined;
      if (!m || !model || (m[2] && m[2] !== '1')) { send(404, { error: `Request for unknown model: '${m?.[1] ?? req.url}'` }); return; }
      const st = stats.get(model.name)!;
      const batchDim = model.maxBatchSize > 0 ? [-1] : [];
      switch (m[3]) {
        case undefined:
          send(200, { name: model.name, versions: ['1'], platform: 'onnxruntime_onnx', inputs: model.inputs.map((i) => ({ ...i, shape: [...batchDim, ...i.shape] })), outputs: [{ name: 'OUTPUT0', datatype: 'FP32', shape: [...batchDim, 4] }] });
          return;
        case '/ready':
          res.writeHead(model.ready === false ? 400 : 200).end();
          return;
        case '/config':
          send(200, { name: model.name, max_batch_size: model.maxBatchSize });
          return;
        case '/stats': {
          const zero = { count: 0, ns: 0 };
          send(200, { model_stats: [{ name: model.name, version: '1', last_inference: 0, inference_count: st.inference_count, execution_count: st.execution_count,
            inference_stats: { success: st.success, fail: zero, queue: zero, compute_input: zero, compute_infer: st.compute_infer, compute_output: zero }, batch_stats: [] }] });
          return;
        }
        case '/infer': {
          const t0 = process.hrtime.bigint();
          const body = Buffer.concat(chunks);
          const headerLength = Number(req.headers['inference-header-content-length'] ?? body.length);
          const header = JSON.parse(body.subarray(0, headerLength).toString('utf8')) as { inputs: Array<{ shape: number[]; parameters?: { binary_data_size?: number } }> };
          const first = header.inputs[0]!;
          const batch = model.maxBatchSize > 0 ? first.shape[0]! : 1;
          if (model.maxBatchSize > 0 && batch > model.maxBatchSize) {
            send(400, { error: `inference request batch-size must be <= ${model.maxBatchSize} for '${model.name}'` });
            return;
          }
          const data = body.subarray(headerLength, headerLength + (first.parameters?.binary_data_size ?? 0));
          const json = Buffer.from(JSON.stringify({ model_name: model.name, model_version: '1', outputs: [{ name: 'OUTPUT0', datatype: 'FP32', shape: first.shape, parameters: { binary_data_size: data.length } }] }));
          const ns = Number(process.hrtime.bigint() - t0);
          st.inference_count += batch;
          st.execution_count += 1;
          st.success.count += 1;
          st.success.ns += ns;
          st.compute_infer.count += 1;
          st.compute_infer.ns += ns;
          res.writeHead(200, { 'Content-Type': 'application/octet-stream', 'Inference-Header-Content-Length': json.length, 'Content-Length': json.length + data.length });
          res.end(Buffer.concat([json, data]));
          return;
        }
      }
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `127.0.0.1:${port}`,
    stats: (name) => stats.get(name)!,
    close: () => new Promise((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}
