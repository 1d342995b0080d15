/**
 * Runs the kernel suites on one ISA (portable, avx2, avx512) through GEBE_CPU_ISA. The cpu engine
 * picks its kernels once per process when the first session loads, and vitest runs every test file
 * in a process of its own (pool: 'forks'), so a file that sets the variable before any session
 * loads runs all of its sessions on that ISA. An ISA this CPU lacks, or the one the default run
 * already uses, is skipped with the reason.
 */
import { describe } from 'vitest';
import { cpuGemmIsa, cpuSupportedIsas } from './cpu-session.js';

/** Why `isa`'s suites do not run in this process, or undefined when they do (then GEBE_CPU_ISA is set). */
export function forceCpuIsa(isa: 'portable' | 'avx2' | 'avx512'): string | undefined {
  if (!cpuSupportedIsas().includes(isa)) return `this CPU does not run ${isa} kernels`;
  if (process.env.GEBE_CPU_ISA === undefined && process.arch !== 'arm64' && cpuSupportedIsas().at(-1) === isa) return `${isa} is the default ISA here, which the other test files run`;
  if (process.env.GEBE_CPU_ISA !== undefined && process.env.GEBE_CPU_ISA !== isa) return `GEBE_CPU_ISA=${process.env.GEBE_CPU_ISA} is set for the whole run`;
  process.env.GEBE_CPU_ISA = isa;
  return undefined;
}

/** Registers a skipped suite that says why (so a skipped ISA shows in the report instead of vanishing). */
export function describeSkippedIsa(isa: string, reason: string): void {
  describe.skip(`${isa} kernels: ${reason}`, () => {});
}

/** The ISA the loaded engine actually uses (to check that forcing took effect). */
export function activeCpuIsa(): string {
  return cpuGemmIsa();
}
