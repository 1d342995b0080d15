// Kernels that exist only as the result of an optimiser fusion (elementwise_fusion.cc): they are
// not ONNX operators, so they are built directly rather than through the kernel registry (which
// lists the operators a model may use).
#pragma once

#include <memory>

#include "cpu/ops/kernel.h"

namespace gebe::cpu {

// Softmax(X * scale + bias) over the last axis, for inputs {X} or {X, bias}: what Mul/Div by a
// constant, Add of a mask and Softmax(axis=-1) compute in attention, in one pass. `node` is the
// Softmax node (errors name it); `scale_shape` is the shape of the constant the scale came from.
std::unique_ptr<Kernel> MakeScaledSoftmax(const Node& node, float scale, const Shape& scale_shape);

}  // namespace gebe::cpu
