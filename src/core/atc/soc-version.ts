/**
 * Detects the chip for ATC's --soc_version from `npu-smi info`, whose device table lists the chip
 * name ("310P3", "910B1") after the NPU id; ATC wants it prefixed with "Ascend".
 */
import { execa } from 'execa';

/** "| 0     910B1    | OK ..." or "| 8   310P3  | OK ..." → "Ascend910B1" / "Ascend310P3". */
export function parseNpuSmiInfo(output: string): string | undefined {
  for (const line of output.split(/\r?\n/)) {
    const match = /^\|\s*\d+\s+(?:Ascend)?(\d{3}[A-Za-z0-9]*)\s+\|/.exec(line);
    if (match) return `Ascend${match[1]}`;
  }
  return undefined;
}

export interface SocDetection {
  socVersion?: string;
  /** Why nothing was detected, for the error message. */
  reason?: string;
}

export async function detectSocVersion(env: NodeJS.ProcessEnv): Promise<SocDetection> {
  try {
    const result = await execa('npu-smi', ['info'], { env, extendEnv: false, reject: false, timeout: 15_000 });
    const code = (result as { code?: string }).code;
    if (code === 'ENOENT') return { reason: 'npu-smi is not on PATH (no Ascend driver here)' };
    if (result.exitCode !== 0) {
      return { reason: `npu-smi info failed (${result.exitCode !== undefined ? `exit code ${result.exitCode}` : result.signal ?? result.shortMessage})` };
    }
    const socVersion = parseNpuSmiInfo(result.stdout);
    return socVersion ? { socVersion } : { reason: 'npu-smi info listed no NPU' };
  } catch (err) {
    const code = (err as { code?: string }).code;
    return { reason: code === 'ENOENT' ? 'npu-smi is not on PATH (no Ascend driver here)' : `npu-smi failed: ${(err as Error).message}` };
  }
}
