/**
 * The breaking-change rules of `gebe validate --against`: each compares the repository with a
 * baseline and reports what breaks a client or a deployment that worked against the baseline.
 * Docs: docs/rules/<ID>.md; severity: `--against-rule ID=off|info|warning|error`.
 */
import type { RuleMeta } from '../rule.js';

export type BreakingRuleId =
  | 'BREAKING_MODEL_REMOVED'
  | 'BREAKING_VERSION_REMOVED'
  | 'BREAKING_TENSOR_REMOVED'
  | 'BREAKING_INPUT_REQUIRED'
  | 'BREAKING_DATATYPE_CHANGED'
  | 'BREAKING_DIMS_CHANGED'
  | 'BREAKING_MAX_BATCH_SIZE'
  | 'BREAKING_GEAR_REMOVED'
  | 'BREAKING_LABELS_CHANGED'
  | 'BREAKING_SEQUENCE_CONTROL_CHANGED'
  | 'BREAKING_ENSEMBLE_INTERFACE';

export interface BreakingRule extends RuleMeta {
  id: BreakingRuleId;
}

const rule = (id: BreakingRuleId, purpose: string): BreakingRule => ({ id, purpose, severity: 'error', fixable: false });

export const BREAKING_RULES: readonly BreakingRule[] = [
  rule('BREAKING_MODEL_REMOVED', 'Checks that no model of the baseline was removed or renamed, since clients call models by name.'),
  rule('BREAKING_VERSION_REMOVED', 'Checks that every version the baseline served under its version policy is still served, except versions that roll off because newer ones were added.'),
  rule('BREAKING_TENSOR_REMOVED', 'Checks that no input or output of the baseline was removed or renamed, since clients name tensors in every request.'),
  rule('BREAKING_INPUT_REQUIRED', 'Checks that no required input was added and no optional input made required, since existing clients do not send it.'),
  rule('BREAKING_DATATYPE_CHANGED', "Checks that no input or output changed its data_type, since clients encode and decode tensors by it."),
  rule('BREAKING_DIMS_CHANGED', 'Checks that dims stayed compatible: same rank, no fixed dim changed, no variable input dim made fixed, no fixed output dim made variable.'),
  rule('BREAKING_MAX_BATCH_SIZE', 'Checks that max_batch_size was not lowered and batching was not turned off or on, since either rejects requests or changes every tensor shape.'),
  rule('BREAKING_GEAR_REMOVED', 'Checks that a GE model keeps every gear (graph.ge.dynamicDims entry) of the baseline, since a removed gear fails the shapes it served.'),
  rule('BREAKING_LABELS_CHANGED', "Checks that an output's label file keeps every baseline label at its index (labels may only be appended), since classification results map indexes to labels."),
  rule('BREAKING_SEQUENCE_CONTROL_CHANGED', 'Checks that sequence batching and its control inputs (kinds, tensor names, types and values) did not change, since sequence clients send them with every request.'),
  rule('BREAKING_ENSEMBLE_INTERFACE', "Checks that an ensemble's external inputs and outputs (names, data types, dims) did not change incompatibly; ensembles get their own id so pipelines can be gated apart from models."),
];

const byId = new Map<string, BreakingRule>(BREAKING_RULES.map((r) => [r.id, r]));

export function findBreakingRule(id: string): BreakingRule | undefined {
  return byId.get(id);
}
