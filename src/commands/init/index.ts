import type { Command } from 'commander';
import type { CommandContext } from '../../cli.js';
import { repositoryOptions, takeRepository } from '../repository-option.js';
import { parseInitOptions, DEFAULT_REPO, type RawInitOptions } from './options.js';
import { TEMPLATE_NAMES } from './templates.js';

export function registerInit(program: Command, ctx: CommandContext): void {
  const cmd = program
    .command('init <model_name>')
    .description('scaffold a model from a template or an ONNX file');
  for (const option of repositoryOptions(`model repository to create the model in, created if missing (default: ${DEFAULT_REPO})`)) cmd.addOption(option);
  cmd
    .option('-t, --template <name>', `template: ${TEMPLATE_NAMES.join(' | ')} (default: mnist)`)
    .option('--from <model.onnx>', 'start from an ONNX model: config inputs/outputs match its graph')
    .option('-y, --yes', 'take the defaults for everything not given by a flag (no prompts)')
    .option('-f, --force', 'replace an existing model directory')
    .option('--backend <name>', 'config backend (default: ge)')
    .option('--max-batch-size <n>', 'max_batch_size (0 disables batching)')
    .option('--preferred-batch-sizes <list>', 'dynamic_batching.preferred_batch_size, e.g. 4,8,16')
    .option('--max-queue-delay-us <n>', 'dynamic_batching.max_queue_delay_microseconds')
    .option('--instance-count <n>', 'instance_group count')
    .action(async (modelName: string, raw: RawInitOptions) => {
      const [{ runInit }, { inquirerPrompter }] = await Promise.all([import('./run.js'), import('./prompter.js')]);
      const repo = takeRepository(raw, ctx.io);
      await runInit(parseInitOptions(modelName, { ...raw, modelRepository: repo }), { io: ctx.io, prompter: inquirerPrompter });
    });
}
