import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GebeServer } from '../../../src/core/server/server.js';
import { runGebe } from '../../helpers/gebe-cli.js';
import { serveModelDir } from '../../helpers/model-server.js';
import { TEMPLATES_DIR } from '../../../src/commands/init/templates.js';
import { fixtureModelPath } from '../../helpers/onnx-fixtures.js';

const samples = path.join(TEMPLATES_DIR, 'mnist', 'samples');
let tmp: string;

const gebe = (args: string[]) => runGebe(args, { cwd: tmp });

/** The top-1 label `gebe infer` printed. */
const top1 = (out: string) => /top \d+:\n {4}"([^"]+)"/.exec(out)?.[1];

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'gebe-infer-'));
  expect((await gebe(['init', 'mnist_classifier', '--yes'])).code).toBe(0);
});
afterAll(() => {
  fs.rmSync(tmp, { recursive: true, force: true });
});

function writeZeros(): string {
  fs.writeFileSync(path.join(tmp, 'zeros.json'), JSON.stringify({ data: [{ image: new Array(784).fill(0) }] }));
  return 'zeros.json';
}

describe('gebe infer in process', () => {
  it('prints the right digit for every PNG sample of the template', async () => {
    for (let digit = 0; digit < 10; digit++) {
      const r = await gebe(['infer', '-m', 'mnist_classifier', '--input', path.join(samples, `digit-${digit}.png`)]);
      expect(r.err).toBe('');
      expect(r.code).toBe(0);
      expect(top1(r.out)).toBe(String(digit));
    }
  });

  it('sends several images for one input as one batch, up to max_batch_size', async () => {
    const files = [7, 2, 1].map((d) => path.join(samples, `digit-${d}.png`));
    const r = await gebe(['infer', '-m', 'mnist_classifier', '--json', '-k', '1', ...files.flatMap((f) => ['--input', f])]);
    const result = JSON.parse(r.out) as { outputs: Array<{ shape: number[]; topK: Array<Array<{ label: string }>> }> };
    expect(result.outputs[0]!.shape).toEqual([3, 10]);
    expect(result.outputs[0]!.topK.map((item) => item[0]!.label)).toEqual(['7', '2', '1']);
    const text = await gebe(['infer', '-m', 'mnist_classifier', ...files.flatMap((f) => ['--input', f])]);
    expect(text.out).toContain(`${files[1]} → image item 1`);
    expect(text.out).toContain('item 2 top 3:\n    "1"');
    const many = Array.from({ length: 17 }, () => ['--input', files[0]!]).flat();
    const tooMany = await gebe(['infer', '-m', 'mnist_classifier', ...many]);
    expect(tooMany.code).toBe(2);
    expect(tooMany.err).toContain('17 images for input "image" exceed max_batch_size 16');
  });

  it('reads PGM, and resizes and inverts a dark-on-light picture', async () => {
    const pgm = await gebe(['infer', '-m', 'mnist_classifier', '--input', path.join(samples, 'digit-2.pgm')]);
    expect(top1(pgm.out)).toBe('2');
    const paper = await gebe(['infer', '-m', 'mnist_classifier', '--input', path.join(samples, 'paper-3.png')]);
    expect(paper.out).toContain('resized 84x84 → 28x28, inverted (dark on light background), scaled to pixel/255');
    expect(top1(paper.out)).toBe('3');
    const notInverted = await gebe(['infer', '-m', 'mnist_classifier', '--input', path.join(samples, 'paper-3.png'), '--invert', 'no']);
    expect(notInverted.out).not.toContain('inverted');
  });

  it('prints the same result as JSON, and takes JSON input and --random', async () => {
    const json = await gebe(['infer', '-m', 'mnist_classifier', '--input', path.join(samples, 'digit-7.png'), '--json', '-k', '1']);
    const result = JSON.parse(json.out) as { model: string; outputs: Array<{ name: string; shape: number[]; data: number[]; topK: Array<Array<{ label: string }>> }> };
    expect(result.model).toBe('mnist_classifier');
    expect(result.outputs[0]).toMatchObject({ name: 'logits', shape: [1, 10] });
    expect(result.outputs[0]!.topK[0]).toEqual([expect.objectContaining({ label: '7', index: 7 })]);
    // The same pixels as a JSON file give the same logits.
    const pixels = Array.from(fs.readFileSync(path.join(samples, 'digit-7.pgm')).subarray(-784), (v) => v / 255);
    fs.writeFileSync(path.join(tmp, 'seven.json'), JSON.stringify({ data: [{ image: pixels }] }));
    const fromJson = JSON.parse((await gebe(['infer', '-m', 'mnist_classifier', '--input', 'seven.json', '--json'])).out) as typeof result;
    expect(fromJson.outputs[0]!.data).toEqual(result.outputs[0]!.data);
    const random = await gebe(['infer', '-m', 'mnist_classifier', '--random']);
    expect(random.code).toBe(0);
    expect(random.out).toContain('logits FP32 [1, 10]');
    // --input zero / random, as the JSON reader's error offers (and perf's --input-data takes).
    for (const kind of ['zero', 'random']) {
      const r = await gebe(['infer', '-m', 'mnist_classifier', '--input', kind, '--json']);
      expect(r.code).toBe(0);
      expect(JSON.parse(r.out).outputs[0]).toMatchObject({ name: 'logits', shape: [1, 10] });
    }
    const zeros = JSON.parse((await gebe(['infer', '-m', 'mnist_classifier', '--input', 'zero', '--json'])).out) as typeof result;
    const zeroJson = JSON.parse((await gebe(['infer', '-m', 'mnist_classifier', '--input', writeZeros(), '--json'])).out) as typeof result;
    expect(zeros.outputs[0]!.data).toEqual(zeroJson.outputs[0]!.data);
    const both = await gebe(['infer', '-m', 'mnist_classifier', '--input', 'random', '--random']);
    expect(both.code).toBe(2);
    expect(both.err).toContain('--input random gives every input; pass it alone');
  });

  it('fills a non-batching model input [-1, 1, 28, 28], and refuses an image for a non-image input', async () => {
    expect((await gebe(['init', 'flat', '--yes', '--max-batch-size', '0'])).code).toBe(0);
    const flat = await gebe(['infer', '-m', 'flat', '--input', path.join(samples, 'digit-5.png')]);
    expect(flat.out).toContain('image [1, 1, 28, 28]');
    expect(top1(flat.out)).toBe('5');
    expect((await gebe(['init', 'blank', '--yes', '--template', 'blank'])).code).toBe(0);
    const image = await gebe(['infer', '-m', 'blank', '--input', path.join(samples, 'digit-5.png')]);
    expect(image.code).toBe(2);
    expect(image.err).toContain('input "input" has shape [-1, 4], which is not an image');
    const random = await gebe(['infer', '-m', 'blank', '--random', '--json']);
    const out = JSON.parse(random.out) as { outputs: Array<{ name: string; shape: number[]; data: number[] }> };
    expect(out.outputs[0]).toMatchObject({ name: 'output', shape: [1, 4] });
    fs.writeFileSync(path.join(tmp, 'broken.png'), Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.from('garbage')]));
    const broken = await gebe(['infer', '-m', 'mnist_classifier', '--input', 'broken.png']);
    expect(broken.code).toBe(2);
    expect(broken.err).toContain('broken.png is not a valid PNG');
  });

  it('names the problem: unknown model, no input, a wrong file', async () => {
    const unknown = await gebe(['infer', '-m', 'nope', '--random']);
    expect(unknown.code).toBe(2);
    expect(unknown.err).toContain('model "nope" is not in model_repository');
    expect(unknown.err).toContain('models there: blank, flat, mnist_classifier');
    const none = await gebe(['infer', '-m', 'mnist_classifier']);
    expect(none.err).toContain('pass --input <image.png|image.pgm|data.json> or --random');
    fs.writeFileSync(path.join(tmp, 'bad.json'), JSON.stringify({ data: [{ image: [1, 2, 3] }] }));
    const bad = await gebe(['infer', '-m', 'mnist_classifier', '--input', 'bad.json']);
    expect(bad.code).toBe(2);
    expect(bad.err).toContain('--input');
    expect(bad.err).toContain('has 3 values but one sample of shape [1,28,28] needs 784');
    const wrongName = await gebe(['infer', '-m', 'mnist_classifier', '--input', `pixels=${path.join(samples, 'digit-1.png')}`]);
    expect(wrongName.err).toContain('model "mnist_classifier" has no input "pixels"');
  });

  it('names an input value the model cannot take as an error of the input, not an internal one', async () => {
    // A Llama block whose rotary embedding reads position ids from a table of 64.
    expect((await gebe(['init', 'llama', '--yes', '--from', fixtureModelPath('torch/llama_mini_opset23.onnx')])).code).toBe(0);
    const ids = Array.from({ length: 32 }, (_, i) => i % 100);
    const pos = Array.from({ length: 32 }, (_, i) => (i === 5 ? 64 : i % 16));
    fs.writeFileSync(path.join(tmp, 'llama.json'), JSON.stringify({ data: [{ ids, pos }] }));
    const r = await gebe(['infer', '-m', 'llama', '--input', 'llama.json']);
    expect(r.code).toBe(2);
    expect(r.err).toContain("error: failed to run model 'llama' (cpu engine): node 'node_rotary_embedding' (RotaryEmbedding): position_ids[0, 5] is 64, outside the caches' 64 positions");
    expect(r.err).toContain('hint: check the input values against what the model takes');
    expect(r.err).not.toContain('internal error');
  });
});

describe('gebe infer -u (KServe v2 HTTP)', () => {
  let server: GebeServer;
  let url: string;
  let grpcAddress: string;

  beforeAll(async () => {
    ({ server, http: url, grpc: grpcAddress } = await serveModelDir(path.join(tmp, 'model_repository', 'mnist_classifier')));
  });
  afterAll(async () => {
    await server?.stop(2000);
  });

  it('sends the image to the server and labels the result from the local repository', async () => {
    const r = await gebe(['infer', '-m', 'mnist_classifier', '-u', url, '--input', path.join(samples, 'digit-4.png')]);
    expect(r.err).toBe('');
    expect(r.out).toContain(`mnist_classifier v1 (http://${url})`);
    expect(top1(r.out)).toBe('4');
  });

  it('does the same over gRPC with -i grpc', async () => {
    const r = await gebe(['infer', '-m', 'mnist_classifier', '-u', grpcAddress, '-i', 'grpc', '--input', path.join(samples, 'digit-9.png')]);
    expect(r.err).toBe('');
    expect(r.out).toContain(`mnist_classifier v1 (grpc://${grpcAddress})`);
    expect(top1(r.out)).toBe('9');
  });

  it('prints the scores without classes when the label file is not available locally', async () => {
    const r = await gebe(['infer', '-m', 'mnist_classifier', '-u', url, '--model-repository', 'elsewhere', '--input', path.join(samples, 'digit-4.png')]);
    expect(r.code).toBe(0);
    expect(r.out).not.toContain('top 3');
    expect(r.out).toContain('(no classes for "logits": its labels.txt is not readable here; pass --model-repository with a local copy of the repository)');
    // The old spelling still works, with a one-line note.
    const old = await gebe(['infer', '-m', 'mnist_classifier', '-u', url, '--repo', 'elsewhere', '--input', path.join(samples, 'digit-4.png')]);
    expect(old.code).toBe(0);
    expect(old.err).toBe("warning: --repo is deprecated; use --model-repository (Triton's spelling)\n");
  });

  it('says when the server is not there or lacks the model', async () => {
    const missing = await gebe(['infer', '-m', 'other', '-u', url, '--random']);
    expect(missing.code).toBe(2);
    expect(missing.err).toContain('model "other" is not on the server');
  });
});
