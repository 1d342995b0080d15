import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { detectSocVersion, parseNpuSmiInfo } from '../../../src/core/atc/soc-version.js';
import { findAtc } from '../../../src/core/atc/find-atc.js';

const fakeDir = path.resolve(__dirname, '../../helpers/fake-atc');
const nodeDir = path.dirname(process.execPath);

describe('parseNpuSmiInfo', () => {
  it('takes the chip name from the first device row', () => {
    const table = [
      '+---------------------------+---------------+----------------------------------------------------+',
      '| NPU   Name                | Health        | Power(W)    Temp(C)           Hugepages-Usage(page)|',
      '| Chip                      | Bus-Id        | AICore(%)   Memory-Usage(MB)  HBM-Usage(MB)        |',
      '+===========================+===============+====================================================+',
      '| 0     910B1               | OK            | 93.3        38                0    / 0             |',
      '| 0                         | 0000:C1:00.0  | 0           0    / 0          3162 / 65536         |',
    ].join('\n');
    expect(parseNpuSmiInfo(table)).toBe('Ascend910B1');
    expect(parseNpuSmiInfo('| 8     Ascend310P3   | OK  |')).toBe('Ascend310P3');
    expect(parseNpuSmiInfo('No NPU device found')).toBeUndefined();
  });

  it('runs npu-smi info from PATH, and says why when it is not there', async () => {
    expect(await detectSocVersion({ PATH: `${fakeDir}:${nodeDir}` })).toEqual({ socVersion: 'Ascend310P3' });
    expect(await detectSocVersion({ PATH: '/nonexistent' })).toEqual({ reason: 'npu-smi is not on PATH (no Ascend driver here)' });
  });
});

describe('findAtc', () => {
  it('finds atc on PATH', () => {
    expect(findAtc({ PATH: `/nonexistent:${fakeDir}` })).toBe(path.join(fakeDir, 'atc'));
  });

  it('names the missing variable and the set_env.sh to source', () => {
    expect(() => findAtc({ PATH: '/nonexistent' }, [])).toThrow(/ASCEND_HOME_PATH is not set/);
    try {
      findAtc({ PATH: '/nonexistent' }, []);
    } catch (err) {
      expect((err as { hint: string }).hint).toContain('source /usr/local/Ascend/cann/set_env.sh');
    }
    expect(() => findAtc({ PATH: '/nonexistent', ASCEND_HOME_PATH: '/opt/cann' }, [])).toThrow('PATH lacks /opt/cann/bin');
  });
});
