/**
 * tritonserver's flags that gebe serve accepts without acting on them, so that a Triton command
 * line (a Dockerfile's, a compose file's, a blog post's) starts gebe as it is: each is about
 * something gebe does not have (GPUs, CUDA memory pools, backend shared libraries, Triton's thread
 * pools) and says so. They are left out of --help; serve names the ones given on stderr at start.
 * Triton's flags gebe does act on are serve's own options (index.ts).
 */
import type { Command } from 'commander';
import { acceptIgnoredFlags, givenIgnoredFlags, type IgnoredFlag } from '../ignored-flags.js';

export const IGNORED_TRITON_FLAGS: readonly IgnoredFlag[] = [
  { flag: '--allow-gpu-metrics', arg: '[bool]', why: 'gebe runs on no GPU' },
  { flag: '--pinned-memory-pool-byte-size', arg: '<value>', why: 'no CUDA: tensors are in host memory' },
  { flag: '--cuda-memory-pool-byte-size', arg: '<value>', why: 'no CUDA', repeatable: true },
  { flag: '--min-supported-compute-capability', arg: '<value>', why: 'no CUDA' },
  { flag: '--cuda-virtual-address-size', arg: '<value>', why: 'no CUDA', repeatable: true },
  { flag: '--backend-directory', arg: '<value>', why: 'gebe\'s backends are built in' },
  { flag: '--repoagent-directory', arg: '<value>', why: 'gebe has no repository agents' },
  { flag: '--backend-config', arg: '<value>', why: 'gebe\'s backends take no configuration of Triton\'s backends', repeatable: true },
  { flag: '--host-policy', arg: '<value>', why: 'gebe has no host policies', repeatable: true },
  { flag: '--buffer-manager-thread-count', arg: '<value>', why: 'gebe has no buffer manager threads' },
  { flag: '--grpc-infer-allocation-pool-size', arg: '<value>', why: 'gebe recycles request buffers by size' },
  { flag: '--strict-model-config', arg: '[bool]', why: 'deprecated in Triton; see --disable-auto-complete-config' },
  { flag: '--cache-directory', arg: '<value>', why: 'gebe\'s response cache is Triton\'s local one, built in' },
];

/** Registers the flags, hidden from --help. */
export function acceptIgnoredTritonFlags(command: Command): Command {
  return acceptIgnoredFlags(command, IGNORED_TRITON_FLAGS);
}

/** The ignored flags a command line gave, each with why (for serve's warning at start). */
export function givenIgnoredTritonFlags(flags: object): string[] {
  return givenIgnoredFlags(flags, IGNORED_TRITON_FLAGS);
}
