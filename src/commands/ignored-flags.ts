/**
 * Flags of the tools gebe stands in for (tritonserver, perf_analyzer) that a gebe command accepts
 * without acting on them, so that a command line written for the tool runs as it is: each says why
 * it changes nothing. They are left out of --help; the command names the ones given, with why, in a
 * warning at start. One machinery for every such list (serve/triton-flags.ts, perf/perf-analyzer-flags.ts).
 */
import { Option, type Command } from 'commander';

export interface IgnoredFlag {
  /** `--name`, or `-s, --name`, or a short flag alone (`-v`). */
  flag: string;
  /** Commander's argument: `<value>`, `[bool]` for an optional boolean, none for a switch. */
  arg?: '<value>' | '[bool]';
  /** Why it changes nothing in gebe. */
  why: string;
  repeatable?: boolean;
}

/** Commander's property name of a flag: --allow-gpu-metrics → allowGpuMetrics, -v → v. */
function property(flag: string): string {
  const long = /--([a-z0-9-]+)/.exec(flag)?.[1];
  if (long === undefined) return flag.replace(/^-/, '');
  return long.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
}

/** The flag as the warning names it: its long form when it has one. */
function shown(flag: string): string {
  return /--[a-z0-9-]+/.exec(flag)?.[0] ?? flag;
}

/** Registers the flags on `command`, hidden from --help. */
export function acceptIgnoredFlags(command: Command, list: readonly IgnoredFlag[]): Command {
  for (const { flag, arg, repeatable } of list) {
    const option = new Option(arg ? `${flag} ${arg}` : flag).hideHelp();
    command.addOption(repeatable ? option.argParser((v: string, acc: string[] = []) => [...acc, v]) : option);
  }
  return command;
}

/** The flags of `list` a command line gave, each with why (for the warning at start). */
export function givenIgnoredFlags(flags: object, list: readonly IgnoredFlag[]): string[] {
  const given = flags as Record<string, unknown>;
  return list.filter(({ flag }) => given[property(flag)] !== undefined).map(({ flag, why }) => `${shown(flag)} (${why})`);
}
