/**
 * The source_input check batch_input and batch_output share (BATCH_INPUT_INVALID,
 * BATCH_OUTPUT_INVALID): exactly one, a declared input, and not an optional one, since the batch is
 * described by (or its output split by) that input of every request.
 */
import { hint, type ConfigContext } from './rule.js';

export function checkBatchSources(
  ctx: ConfigContext,
  at: Array<string | number>,
  label: string,
  sources: string[],
  what: string,
): void {
  const inputs = new Map((ctx.config.input ?? []).map((t) => [t.name, t]));
  if (sources.length !== 1) {
    ctx.report({
      at: sources.length === 0 ? at : [...at, 'source_input'],
      message: `${label} expects 1 source input, got ${sources.length}`,
      fix: hint(`list exactly one source_input: ${what}`),
    });
  }
  sources.forEach((s, k) => {
    const input = inputs.get(s);
    if (!input) {
      ctx.report({ at: [...at, 'source_input', k], message: `unknown source input name '${s}': no model input has that name`, fix: hint(`use one of: ${[...inputs.keys()].join(', ') || '(no inputs declared)'}`) });
    } else if (input.optional === true) {
      ctx.report({
        at: [...at, 'source_input', k],
        message: `source input '${s}' is optional: a request that leaves it out cannot be batched by it`,
        fix: hint(`make '${s}' required (remove optional: true), or name another input`),
      });
    }
  });
}
