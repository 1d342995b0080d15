import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { GebeError } from '../../../src/errors.js';
import { findModelFile, engineForModelFile } from '../../../src/core/executor/model-file.js';
import { nativeOptions, parseDeviceIds, parseDynamicDimsGears } from '../../../src/core/executor/load-options.js';

const work = mkdtempSync(path.join(os.tmpdir(), 'gebe-opts-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

function version(files: string[]): string {
  const dir = mkdtempSync(path.join(work, 'm-'));
  mkdirSync(path.join(dir, '1'));
  for (const f of files) writeFileSync(path.join(dir, '1', f), '');
  return dir;
}

describe('findModelFile', () => {
  it('takes default_model_filename, else the first .onnx, else the first .om', () => {
    const dir = version(['b.onnx', 'a.onnx', 'c.om']);
    expect(findModelFile(dir, '1', {})).toBe(path.join(dir, '1', 'a.onnx'));
    expect(findModelFile(dir, '1', { default_model_filename: 'c.om' })).toBe(path.join(dir, '1', 'c.om'));
    const om = version(['z.om', 'notes.txt']);
    expect(findModelFile(om, '1', {})).toBe(path.join(om, '1', 'z.om'));
    expect(engineForModelFile('x/model.OM')).toBe('ascend');
    expect(engineForModelFile('x/model.onnx')).toBe('cpu');
    expect(engineForModelFile('x/model.pb')).toBeUndefined();
  });

  it('says what it looked for', () => {
    const empty = version(['readme.md']);
    expect(() => findModelFile(empty, '1', {})).toThrow(`no model file in ${path.join(empty, '1')}: looked for *.onnx, then *.om`);
    expect(() => findModelFile(empty, '2', {})).toThrow(`model version directory ${path.join(empty, '2')} does not exist`);
    expect(() => findModelFile(empty, '1', { default_model_filename: 'm.onnx' })).toThrow(GebeError);
    expect(() => findModelFile(empty, '1', { default_model_filename: 'readme.md' })).toThrow(/no gebe engine runs/);
  });
});

describe('nativeOptions', () => {
  it('maps dynamic batching, queue policies, instances and parameters', () => {
    const o = nativeOptions('m', {
      max_batch_size: 16,
      instance_group: [{ count: 2 }, { count: 1, kind: 'KIND_CPU' }],
      dynamic_batching: {
        preferred_batch_size: [4, 8, 32],
        max_queue_delay_microseconds: 100,
        priority_levels: 2,
        default_priority_level: 2,
        default_queue_policy: { max_queue_size: 10 },
        priority_queue_policy: { '1': { timeout_action: 'DELAY', default_timeout_microseconds: 500, allow_timeout_override: true } },
      },
      parameters: { device_ids: { string_value: '4,5' }, 'graph.ge.dynamicDims': { string_value: '8;1;2;4' } },
    });
    expect(o.instanceCount).toBe(3);
    expect(o.intraOpThreads).toBeGreaterThanOrEqual(1);
    expect(o.dynamicBatching).toBe(true);
    expect(o.preferredBatchSizes).toEqual([4, 8]);
    expect(o.maxQueueDelayUs).toBe(100);
    expect(o.defaultQueuePolicy).toEqual({ timeoutAction: 0, defaultTimeoutUs: 0, allowTimeoutOverride: false, maxQueueSize: 10 });
    expect(o.priorityQueuePolicy).toEqual([
      { level: 1, policy: { timeoutAction: 1, defaultTimeoutUs: 500, allowTimeoutOverride: true, maxQueueSize: 0 } },
    ]);
    expect(o.deviceIds).toEqual([4, 5]);
    expect(o.gears).toEqual([1, 2, 4, 8]);
    expect(o.parameters.device_ids).toBe('4,5');
  });

  it('runs each request alone without dynamic_batching or a batch dimension', () => {
    expect(nativeOptions('m', { max_batch_size: 8 }).dynamicBatching).toBe(false);
    expect(nativeOptions('m', { max_batch_size: 0, dynamic_batching: {} }).dynamicBatching).toBe(false);
    expect(nativeOptions('m', {}).instanceCount).toBe(1);
  });

  it('parses device_ids and dynamicDims gears strictly', () => {
    expect(parseDeviceIds('0')).toEqual([0]);
    expect(() => parseDeviceIds('0,x')).toThrow('parameters.device_ids "0,x" is not a comma-separated list of device numbers');
    expect(parseDynamicDimsGears('1,224;2,224')).toEqual([]);  // not batch-only gears
    expect(parseDynamicDimsGears('4;2;2')).toEqual([2, 4]);
    expect(nativeOptions('m', {}).idleSpinUs).toBe(50);
    expect(nativeOptions('m', { parameters: { gebe_idle_spin_us: { string_value: '0' } } }).idleSpinUs).toBe(0);
    expect(() => nativeOptions('m', { parameters: { gebe_idle_spin_us: { string_value: 'lots' } } })).toThrow(
      'parameters.gebe_idle_spin_us "lots" is not a number of microseconds between 0 and 10000',
    );
  });
});
