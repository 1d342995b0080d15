// Depthwise convolution (conv_depthwise.cc), called by the Conv kernel.
#pragma once

#include <cstdint>

#include "cpu/ops/conv_depthwise_rows.h"
#include "cpu/ops/conv_im2col.h"
#include "cpu/ops/kernel.h"

namespace gebe::cpu {

// Relu and Clip as the row kernels apply them while storing; kNone for any other activation.
RowClamp ClampOf(const Activation& act);

// planes = N · output channels; output channel m reads input channel m / multiplier; w holds
// kh·kw weights per output channel; act is applied to each finished plane.
void Depthwise(const float* x, const float* w, const float* bias, float* y, int64_t planes, int64_t channels,
               int64_t multiplier, const Geo2& g, const Activation& act, ThreadPool* pool);

}  // namespace gebe::cpu
