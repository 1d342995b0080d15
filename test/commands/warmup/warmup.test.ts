import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseModelConfig } from '../../../src/core/config/index.js';
import type { GebeServer } from '../../../src/core/server/server.js';
import { runGebe } from '../../helpers/gebe-cli.js';
import { serveModelDir } from '../../helpers/model-server.js';

let tmp: string;
const configFile = () => path.join(tmp, 'model_repository', 'mnist_classifier', 'config.pbtxt');

const gebe = (args: string[]) => runGebe(args, { cwd: tmp });

interface Row { name: string; batchSize: number; compileMs?: number; firstRunMs: number; steadyP50Ms: number }

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'gebe-warmup-'));
  expect((await gebe(['init', 'mnist_classifier', '--yes'])).code).toBe(0);
});
afterAll(() => {
  fs.rmSync(tmp, { recursive: true, force: true });
});

describe('gebe warmup in process', () => {
  it('warms each preferred batch size and max_batch_size, reporting compile, first run and steady p50', async () => {
    const r = await gebe(['warmup', '--runs', '3']);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/mnist_classifier v1 \(in process, cpu engine; one warmup per/);
    const json = JSON.parse((await gebe(['warmup', '-m', 'mnist_classifier', '--runs', '3', '--json'])).out) as Array<{ rows: Row[]; source: string }>;
    expect(json[0]!.source).toBe('default');
    const rows = json[0]!.rows;
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.at(-1)!.batchSize).toBe(16);
    for (const row of rows) {
      expect(row.compileMs).toBeGreaterThanOrEqual(0);
      expect(row.firstRunMs).toBeGreaterThan(0);
      expect(row.steadyP50Ms).toBeGreaterThan(0);
    }
  });

  it('--write adds model_warmup and keeps the rest of config.pbtxt byte for byte; the next run uses the entries', async () => {
    const before = fs.readFileSync(configFile(), 'utf8');
    const r = await gebe(['warmup', '-m', 'mnist_classifier', '--runs', '1', '--write']);
    expect(r.code).toBe(0);
    expect(r.out).toContain('wrote model_warmup for batch sizes');
    const after = fs.readFileSync(configFile(), 'utf8');
    expect(after.startsWith(before)).toBe(true);
    const parsed = parseModelConfig(after, configFile());
    expect(parsed.diagnostics).toEqual([]);
    // The cpu engine runs any batch size (no gears), so the sizes are preferred ∪ max_batch_size.
    expect(parsed.config.model_warmup!.map((w) => w.batch_size)).toEqual([4, 8, 16]);
    expect(r.out).toContain('wrote model_warmup for batch sizes 4, 8, 16');
    const validate = await gebe(['validate']);
    expect(validate.out).toContain('no problems');
    expect(validate.code).toBe(0);
    const again = await gebe(['warmup', '-m', 'mnist_classifier', '--runs', '1', '--write']);
    expect(again.out).toContain('(in process, cpu engine; model_warmup entries)');
    expect(again.out).toContain('already has model_warmup entries: left unchanged');
    expect(fs.readFileSync(configFile(), 'utf8')).toBe(after);
  });
});

describe('gebe warmup with a broken model in the repository', () => {
  it('warms the others, reports the broken one, and exits 2', async () => {
    const broken = path.join(tmp, 'model_repository', 'broken');
    fs.mkdirSync(path.join(broken, '1'), { recursive: true });
    fs.writeFileSync(path.join(broken, 'config.pbtxt'), 'name: "broken"\nbackend: "ge"\nmax_batch_size: 2\n');
    fs.writeFileSync(path.join(broken, '1', 'model.onnx'), 'not an onnx model');
    try {
      const r = await gebe(['warmup', '--runs', '1']);
      expect(r.code).toBe(2);
      expect(r.out).toContain('mnist_classifier v1');
      expect(r.err).toContain('error: broken: ');
      expect(r.err).toContain('warmup failed for 1 of 2 models (broken)');
    } finally {
      fs.rmSync(broken, { recursive: true });
    }
  });
});

describe('gebe warmup -u', () => {
  let server: GebeServer;
  let url: string;
  beforeAll(async () => {
    ({ server, http: url } = await serveModelDir(path.dirname(configFile())));
  });
  afterAll(async () => {
    await server?.stop(2000);
  });

  it('sends the same warmup requests to a running server (no compile column)', async () => {
    const r = await gebe(['warmup', '-u', url, '-m', 'mnist_classifier', '--runs', '2', '--json']);
    expect(r.err).toBe('');
    const [result] = JSON.parse(r.out) as Array<{ where: string; rows: Row[] }>;
    expect(result!.where).toBe(`http://${url}`);
    expect(result!.rows.length).toBeGreaterThan(0);
    expect(result!.rows.every((row) => row.compileMs === undefined && row.firstRunMs > 0)).toBe(true);
  });

  it('needs -m with -u', async () => {
    const r = await gebe(['warmup', '-u', url]);
    expect(r.code).toBe(2);
    expect(r.err).toContain('-u needs -m <model>');
  });
});
