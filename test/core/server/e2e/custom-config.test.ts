/**
 * Triton's custom model configurations on a real server (tritonserver --model-config-name <name>):
 * a model with configs/<name>.pbtxt is loaded with it, one without falls back to its config.pbtxt,
 * a model that has only the custom config is found at all, and the custom config is checked as
 * config.pbtxt is, its findings naming its own file.
 */
import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getJson, postJson } from '../helpers/http-client.js';
import { mnistRepository, startRealServer, type RealServer } from './helpers.js';

let server: RealServer;
let repo: string;

beforeAll(async () => {
  repo = mnistRepository();
  const config = readFileSync(path.join(repo, 'mnist', 'config.pbtxt'), 'utf8');
  // mnist: a larger batch in its ascend310p config.
  mkdirSync(path.join(repo, 'mnist', 'configs'));
  writeFileSync(path.join(repo, 'mnist', 'configs', 'ascend310p.pbtxt'), config.replace('max_batch_size: 16', 'max_batch_size: 32'));
  // plain: config.pbtxt only. only_custom: configs/ascend310p.pbtxt only.
  cpSync(path.join(repo, 'mnist'), path.join(repo, 'plain'), { recursive: true });
  rmSync(path.join(repo, 'plain', 'configs'), { recursive: true });
  writeFileSync(path.join(repo, 'plain', 'config.pbtxt'), config.replace('name: "mnist"', 'name: "plain"'));
  cpSync(path.join(repo, 'mnist'), path.join(repo, 'only_custom'), { recursive: true });
  rmSync(path.join(repo, 'only_custom', 'config.pbtxt'));
  writeFileSync(path.join(repo, 'only_custom', 'configs', 'ascend310p.pbtxt'), config.replace('name: "mnist"', 'name: "only_custom"').replace('max_batch_size: 16', 'max_batch_size: 24'));
  // broken: its custom config has an error its config.pbtxt does not.
  cpSync(path.join(repo, 'plain'), path.join(repo, 'broken'), { recursive: true });
  writeFileSync(path.join(repo, 'broken', 'config.pbtxt'), config.replace('name: "mnist"', 'name: "broken"'));
  mkdirSync(path.join(repo, 'broken', 'configs'));
  writeFileSync(path.join(repo, 'broken', 'configs', 'ascend310p.pbtxt'), config.replace('name: "mnist"', 'name: "broken"').replace('max_batch_size: 16', 'max_batch_size: -3'));
  server = await startRealServer(repo, 'explicit', ['mnist', 'plain', 'only_custom'], undefined, { modelConfigName: 'ascend310p' });
});
afterAll(async () => {
  await server?.stop();
});

const maxBatch = async (model: string) => (await getJson(`${server.http}/v2/models/${model}/config`)).body.max_batch_size;

describe('--model-config-name (as Triton)', () => {
  it('loads a model with its configs/<name>.pbtxt, and falls back to config.pbtxt where there is none', async () => {
    expect(await maxBatch('mnist')).toBe(32);
    expect(await maxBatch('plain')).toBe(16);
    expect(await maxBatch('only_custom')).toBe(24);
  });

  it('lists a model that has only the custom config', async () => {
    const index = await postJson(`${server.http}/v2/repository/index`, {});
    expect(index.body.map((e: { name: string }) => e.name)).toEqual(expect.arrayContaining(['mnist', 'only_custom', 'plain', 'broken']));
  });

  it('checks the custom config as config.pbtxt is, naming its file', async () => {
    const load = await postJson(`${server.http}/v2/repository/models/broken/load`, {});
    expect(load.status).toBe(400);
    expect(load.body.error).toMatch(/^failed to load 'broken': broken\/configs\/ascend310p\.pbtxt:\d+:\d+ MAX_BATCH_SIZE_NEGATIVE /);
  });
});
