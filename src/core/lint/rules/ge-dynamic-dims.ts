import { isGe, parameter } from '../helpers.js';
import { parseDynamicDims, parseInputShape } from '../ge-options.js';
import { hint, type ConfigRule } from '../rule.js';

export const rule: ConfigRule = {
  id: 'GE_DYNAMIC_DIMS',
  purpose: 'Checks that graph.ge.dynamicDims lists gears separated by ";", each with one positive value per -1 in graph.ge.inputShape.',
  severity: 'error',
  fixable: false,
  scope: 'config',
  check(ctx) {
    if (!isGe(ctx.config)) return;
    const text = parameter(ctx.config, 'graph.ge.dynamicDims');
    if (text === undefined || text === '') return;
    const at = ['parameters', 'graph.ge.dynamicDims', 'string_value'];
    const gears = parseDynamicDims(text);
    if (!gears.ok) {
      ctx.report({ at, message: `graph.ge.dynamicDims is malformed: ${gears.message}`, fix: hint('write gears like "1;2;4;8" (one -1) or "1,224;8,448" (two -1 dims)') });
      return;
    }
    const shapeText = parameter(ctx.config, 'graph.ge.inputShape');
    if (shapeText === undefined) {
      ctx.report({ at, message: 'graph.ge.dynamicDims is set without graph.ge.inputShape, so GE cannot tell which dims the gears fill', fix: hint('add graph.ge.inputShape with -1 for each dynamic dim, e.g. "input:-1,3,224,224"') });
      return;
    }
    const shape = parseInputShape(shapeText);
    if (!shape.ok) return; // GE_INPUT_SHAPE reports it
    const wildcards = shape.value.reduce((n, e) => n + e.dims.filter((d) => d === -1).length, 0);
    if (wildcards === 0) {
      ctx.report({ at, message: `graph.ge.dynamicDims is set but graph.ge.inputShape "${shapeText}" has no -1 dim to fill`, fix: hint('mark the dynamic dims with -1 in graph.ge.inputShape, or remove dynamicDims') });
      return;
    }
    gears.value.forEach((gear, i) => {
      if (gear.length === wildcards) return;
      ctx.report({
        at,
        message: `gear ${i + 1} "${gear.join(',')}" of graph.ge.dynamicDims has ${gear.length} value${gear.length === 1 ? '' : 's'}, but graph.ge.inputShape "${shapeText}" has ${wildcards} -1 dim${wildcards === 1 ? '' : 's'}`,
        fix: hint(`give every gear ${wildcards} comma-separated value${wildcards === 1 ? '' : 's'}, one per -1`),
      });
    });
  },
};
