/** An InferTarget on a running KServe v2 server (`-u host:port`), over HTTP. */
import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';
import { HttpModelEndpoint, normalizeBaseUrl } from '../../core/perf/clients/http.js';
import type { ModelConfig } from '../../core/config/model-config.js';
import { httpInfer } from './http-infer.js';
import { inputFormats, readLabels, type InferTarget } from './target.js';

export async function openHttpTarget(url: string, model: string, version: string | undefined, localRepo: string | undefined): Promise<InferTarget> {
  const endpoint = new HttpModelEndpoint(url, model, version);
  try {
    const description = await endpoint.describe();
    const base = normalizeBaseUrl(url);
    const versionPath = `/v2/models/${encodeURIComponent(model)}/versions/${encodeURIComponent(description.version)}`;
    const config = await getConfig(`${base}${versionPath}/config`);
    // Label files are not served over KServe v2: read them from a local copy of the repository if there is one.
    const modelDir = localRepo ? path.join(localRepo, model) : undefined;
    const labels = modelDir && fs.existsSync(modelDir) ? readLabels(modelDir, config) : {};
    return {
      description,
      formats: inputFormats(config),
      labels,
      config,
      gears: [],
      modelDir: modelDir && fs.existsSync(path.join(modelDir, 'config.pbtxt')) ? modelDir : undefined,
      configFile: modelDir && fs.existsSync(path.join(modelDir, 'config.pbtxt')) ? path.join(modelDir, 'config.pbtxt') : undefined,
      where: base,
      infer: (inputs, outputs) => httpInfer(base, `${versionPath}/infer`, inputs, outputs),
      close: () => endpoint.close(),
    };
  } catch (err) {
    await endpoint.close();
    throw err;
  }
}

/** Triton's config extension (GET .../config); undefined when the server does not offer it. */
function getConfig(url: string): Promise<ModelConfig | undefined> {
  return new Promise((resolve) => {
    http.get(url, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        try {
          resolve(res.statusCode === 200 ? (JSON.parse(Buffer.concat(chunks).toString('utf8')) as ModelConfig) : undefined);
        } catch {
          resolve(undefined);
        }
      });
    }).on('error', () => resolve(undefined));
  });
}
