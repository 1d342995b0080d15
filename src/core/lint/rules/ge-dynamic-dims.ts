import { isGe, parameter } from '../helpers.js';
import { planAtcShapes } from '../../atc/shape-plan.js';
import { dynamicDimCount, parseDynamicDims, parseInputShape } from '../ge-options.js';
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
    if (dynamicDimCount(shape.value) === 0) {
      ctx.report({ at, message: `graph.ge.dynamicDims is set but graph.ge.inputShape "${shapeText}" has no -1 dim to fill`, fix: hint('mark the dynamic dims with -1 in graph.ge.inputShape, or remove dynamicDims') });
      return;
    }
    // The same check gebe convert makes before it runs ATC.
    const plan = planAtcShapes(ctx.config);
    if (plan.ok) return;
    for (const p of plan.problems) if (p.kind === 'gear-arity') ctx.report({ at, message: p.message, fix: hint(p.hint) });
  },
};
