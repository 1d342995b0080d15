/**
 * The lint side of `gebe convert`'s refusals: the GE_* rules that report what ATC would refuse
 * call the same planner convert calls (src/core/atc/shape-plan.ts), one rule per kind of problem.
 */
import { planAtcShapes, type AtcProblemKind } from '../atc/shape-plan.js';
import { isGe } from './helpers.js';
import { hint, type ConfigContext } from './rule.js';

export function reportAtcProblems(ctx: ConfigContext, kind: AtcProblemKind): void {
  if (!isGe(ctx.config)) return;
  const plan = planAtcShapes(ctx.config);
  if (plan.ok) return;
  for (const p of plan.problems) if (p.kind === kind) ctx.report({ at: p.at, message: p.message, fix: hint(p.hint) });
}
