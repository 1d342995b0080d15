/**
 * One request of an ensemble that has a decoupled step (a composing model that sends any number of
 * responses): as in Triton, each response of such a step carries the pipeline on by itself. The
 * steps after it run once per response, in a flow of their own: a board layered over the one the
 * decoupled step ran in, so what the other branches write there later is still seen. A flow that
 * sees every requested output is one response of the ensemble (once: a flow whose ancestor answered
 * adds nothing). The request ends when no step runs and every decoupled step has sent its final
 * flag; a step that fails ends it with the step's error, after the responses already sent.
 *
 * A flow is let go once nothing more can happen in it (it has answered, or an ancestor has, every
 * step it needs has started, and none runs in it): a stream of any length holds only the flows
 * still at work, as Triton frees each response's downstream requests when they complete.
 */
import type { DecoupledResponse, InferError, InferRequest, LoadedModel } from '../executor/types.js';
import type { ModelLookup } from '../server/model-lookup.js';
import type { EnsemblePlan, EnsembleStep } from './plan.js';
import { failOnce, stepError, stepOutputs, stepRequest, type BoardTensor } from './run-request.js';
import { GatedSteps, type StepGates } from './step-gates.js';
import { traceJsStep } from '../executor/trace-addon.js';

class Flow {
  readonly own = new Map<string, BoardTensor>();
  readonly started = new Set<number>();
  readonly children = new Set<Flow>();
  answered = false;
  /** Steps launched in this flow that have not finished (a decoupled one: until its final flag). */
  running = 0;
  constructor(readonly parent?: Flow) {}

  get(tensor: string): BoardTensor | undefined {
    for (let f: Flow | undefined = this; f; f = f.parent) {
      const value = f.own.get(tensor);
      if (value) return value;
    }
    return undefined;
  }

  startedHere(step: number): boolean {
    for (let f: Flow | undefined = this; f; f = f.parent) if (f.started.has(step)) return true;
    return false;
  }

  ancestorAnswered(): boolean {
    for (let f = this.parent; f; f = f.parent) if (f.answered) return true;
    return false;
  }

  /**
   * Nothing more can happen here: answered (itself or through an ancestor), every needed step
   * started, none running, and no flow layered over it is left.
   */
  finished(needed: ReadonlySet<number>): boolean {
    if (this.running > 0 || this.children.size > 0 || !(this.answered || this.ancestorAnswered())) return false;
    for (const step of needed) if (!this.startedHere(step)) return false;
    return true;
  }

  /** This flow and every flow layered over it, parents first. */
  *withDescendants(): Generator<Flow> {
    yield this;
    for (const child of this.children) yield* child.withDescendants();
  }
}

/** `answer` gets each flow's board once it sees every one of `outputs`; `inBand` the errors a decoupled step sent as responses. */
export function runDecoupledEnsemble(
  plan: EnsemblePlan, lookup: ModelLookup, gates: StepGates, request: InferRequest, requestBatch: number, needed: ReadonlySet<number>,
  outputs: readonly string[], answer: (board: (tensor: string) => BoardTensor | undefined) => void, inBand: (err: InferError) => void,
): Promise<void> {
  const root = new Flow();
  for (const t of request.inputs) root.own.set(t.name, { tensor: t, batch: requestBatch });
  const absent = new Set([...plan.readers.keys()].filter((t) => !root.own.has(t) && !plan.writer.has(t)));
  let pending = 0;  // steps running, and decoupled steps whose final flag has not come
  let failed = false;
  const gated = new GatedSteps(gates);
  return new Promise<void>((resolve, reject) => {
    const { fail, detach } = failOnce(request.signal, reject, () => {
      failed = true;
      gated.leaveAll();
    });
    const settle = (): void => {
      if (failed || pending > 0) return;
      detach();
      resolve();
    };
    // A finished flow leaves its parent, which may then be finished too (the root stays: it is the request's).
    const letGo = (flow: Flow): void => {
      for (let f = flow; f.parent && f.finished(needed); f = f.parent) f.parent.children.delete(f);
    };
    const answerIfComplete = (flow: Flow): void => {
      if (flow.answered || flow.ancestorAnswered() || !outputs.every((t) => flow.get(t) !== undefined)) return;
      flow.answered = true;
      answer((t) => flow.get(t));
    };
    // New tensors in `flow` are seen by every flow layered over it: each may now start steps or answer.
    const advance = (flow: Flow): void => {
      for (const f of flow.withDescendants()) {
        if (failed) return;
        launchReady(f);
        answerIfComplete(f);
      }
    };
    // A step's request in `flow`, once its gate lets it in; `gateRelease` when the model has answered it.
    const run = (flow: Flow, step: EnsembleStep, gateRelease: () => void): void => {
      if (failed) return gateRelease();
      const index = step.index;
      let model: LoadedModel;
      let stepped: InferRequest;
      try {
        model = lookup.resolve(step.modelName, step.modelVersion);
        stepped = stepRequest(model, step, (t) => flow.get(t), request);
      } catch (err) {
        gateRelease();
        return fail(stepError(plan, step, err));
      }
      const done = (): void => {
        pending -= 1;
        flow.running -= 1;
        letGo(flow);
        settle();
      };
      const traced = traceJsStep(model, stepped);
      if (model.decoupled && model.inferDecoupled) {
        // Each response continues the pipeline in a flow of its own.
        const stepDone = model.inferDecoupled(stepped, (r: DecoupledResponse) => {
          if (failed) return;
          if (r.error) inBand(stepError(plan, step, r.error));
          if (!r.response) return;
          const child = new Flow(flow);
          child.started.add(index);
          try {
            for (const [tensor, value] of stepOutputs(model, step, stepped, r.response)) child.own.set(tensor, value);
          } catch (err) {
            return fail(stepError(plan, step, err));
          }
          flow.children.add(child);
          advance(child);
          letGo(child);
        });
        traced?.(stepDone);
        stepDone.finally(gateRelease).then(done, (err: unknown) => fail(stepError(plan, step, err)));
      } else {
        const response = model.infer(stepped);
        traced?.(response);
        response.finally(gateRelease).then((response) => {
          if (failed) return;
          for (const [tensor, value] of stepOutputs(model, step, stepped, response)) flow.own.set(tensor, value);
          advance(flow);
          done();
        }).catch((err: unknown) => fail(stepError(plan, step, err)));
      }
    };
    const launchReady = (flow: Flow): void => {
      for (const index of needed) {
        if (failed) return;
        if (flow.startedHere(index)) continue;
        const step = plan.steps[index]!;
        if (!step.inputs.every(([, tensor]) => flow.get(tensor) !== undefined || absent.has(tensor))) continue;
        flow.started.add(index);
        flow.running += 1;
        pending += 1;
        gated.enter(index, (gateRelease) => run(flow, step, gateRelease));
      }
    };
    advance(root);
    settle();
  });
}
