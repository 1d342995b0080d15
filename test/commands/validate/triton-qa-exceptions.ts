/**
 * Triton QA cases (../shared/corpus/triton-l0-model-config) that gebe consciously treats
 * differently from Triton, with the reason. The QA test checks that each entry still describes
 * what gebe does, so this list cannot silently go stale.
 */
export interface QaException {
  /** no-error: gebe reports no error; other-message: an error whose text differs from Triton's fragment. */
  treatment: 'no-error' | 'other-message';
  reason: string;
}

export const QA_EXCEPTIONS: Record<string, QaException> = {
  // noautofill_platform/invalid_gpu: gpus: [ 42 ] on KIND_GPU.
  '0163': {
    treatment: 'no-error',
    reason:
      'Whether GPU 42 exists depends on the machine that serves the model, not on the files; the issue says such checks are not lint errors. (For the GE backend, GE_GPU_IGNORED warns that gpus is ignored.)',
  },
  // noautofill_platform/negative_gpu: gpus: [ -1 ].
  '0165': {
    treatment: 'other-message',
    reason:
      "gebe reports GPU_ID_NEGATIVE with Triton's words up to \"specifies invalid or unsupported gpu id -1\"; the rest of Triton's message is about CUDA compute capability of the serving machine, which a negative id has nothing to do with.",
  },
};
