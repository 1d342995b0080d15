import type { Command } from 'commander';
import type { CommandContext } from '../../cli.js';
import { EXIT_FATAL } from '../../errors.js';
import { repositoryOptions, takeRepository } from '../repository-option.js';
import { parseConvertOptions, type RawConvertOptions } from './options.js';

export function registerConvert(program: Command, ctx: CommandContext): void {
  const cmd = program
    .command('convert [path]')
    .description('compile ONNX to .om with ATC, arguments derived from config.pbtxt ([path]: a model directory or a repository, default: ./model_repository)');
  cmd.addOption(repositoryOptions('the model repository (same as the [path] argument)')[0]!);
  cmd
    .option('-m, --model <name>', 'convert only this model of the repository')
    .option('--model-version <n>', 'version directory to convert (default: the highest)')
    .option('--soc-version <soc>', 'ATC --soc_version, e.g. Ascend310P3 (default: detected with npu-smi info)')
    .option('--precision-mode <mode>', 'ATC --precision_mode, e.g. force_fp16, allow_mix_precision, force_fp32')
    .option('--log <level>', 'ATC --log level: debug, info, warning, error, null')
    .option('--dry-run', 'print the atc command(s) without running them')
    .addHelpText('after', '\nThe .om is written next to the ONNX file as <version>/model.om, with the full ATC log in <version>/atc.log.')
    .action(async (target: string | undefined, raw: RawConvertOptions) => {
      const { runConvert } = await import('./run.js');
      const result = await runConvert(parseConvertOptions(takeRepository(raw, ctx.io, target), raw), { io: ctx.io });
      if (result.failed > 0) ctx.setExitCode(EXIT_FATAL);
    });
}
