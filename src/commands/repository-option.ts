/**
 * The one spelling of the repository option, Triton's `--model-repository`, for every command
 * (beside a positional `[repo]` where the command has one). `--repo`, the old spelling of init
 * and infer, still works, hidden from --help, with a one-line deprecation note on stderr.
 */
import path from 'node:path';
import { Option } from 'commander';
import { UsageError } from '../errors.js';
import type { IO } from '../io.js';

export const DEFAULT_REPOSITORY = 'model_repository';

export interface RepositoryFlags {
  modelRepository?: string;
  /** Deprecated spelling. */
  repo?: string;
}

/** `--model-repository <dir>` and the hidden `--repo <dir>` alias, to add to a command. */
export function repositoryOptions(description: string): Option[] {
  return [new Option('--model-repository <dir>', description), new Option('--repo <dir>', 'deprecated: use --model-repository').hideHelp()];
}

/**
 * The repository the user named with the flag, its deprecated alias or the positional argument
 * (undefined when none), refusing two different ones.
 */
export function takeRepository(flags: RepositoryFlags, io: IO, positional?: string): string | undefined {
  if (flags.repo !== undefined) io.stderr.write('warning: --repo is deprecated; use --model-repository (Triton\'s spelling)\n');
  const given = [
    ...(positional !== undefined ? [{ what: `'${positional}'`, dir: positional }] : []),
    ...(flags.modelRepository !== undefined ? [{ what: `--model-repository '${flags.modelRepository}'`, dir: flags.modelRepository }] : []),
    ...(flags.repo !== undefined ? [{ what: `--repo '${flags.repo}'`, dir: flags.repo }] : []),
  ];
  const distinct = new Set(given.map((g) => path.resolve(io.cwd, g.dir)));
  if (distinct.size > 1) throw new UsageError(`two repositories given: ${given.map((g) => g.what).join(' and ')}`, 'give the repository once');
  return given[0]?.dir;
}
