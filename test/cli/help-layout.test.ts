/** One help layout and one repository spelling for every command. */
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/cli.js';
import { memoryIO } from '../../src/io.js';

const program = buildProgram({ io: memoryIO(), setExitCode: () => {} });

describe('every command\'s --help', () => {
  it.each(program.commands.map((c) => [c.name(), c] as const))('%s writes defaults as "(default: …)" and the repository as --model-repository', (_name, cmd) => {
    const help = cmd.helpInformation();
    expect(help).not.toMatch(/\(default [^:]/);
    expect(help).not.toMatch(/--repo\b/);
    expect(help).toContain('--model-repository <dir>');
  });
});
