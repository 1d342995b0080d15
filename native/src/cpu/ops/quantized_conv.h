// The kernels the QDQ fusion (../qdq_fusion.cc) builds: integer convolutions on the integer GEMM
// (quantized_conv.cc, which also runs QLinearConv and ConvInteger), an 8-bit Add and an 8-bit MaxPool.
#pragma once

#include <memory>

#include "cpu/ops/kernel.h"

namespace gebe::cpu {

// A fused QDQ convolution: a QLinearConv's inputs (x, x_scale, x_zero_point, w, w_scale,
// w_zero_point, y_scale, y_zero_point, B) with B in FP32 (the DequantizeLinear'd bias), computed
// as ONNX Runtime's unfused graph does up to FP32 rounding: y = Q(relu?(x_scale·w_scale·acc + B)).
// `conv` carries the Conv's attributes and name.
std::unique_ptr<Kernel> MakeQdqConv(const Node& conv, bool relu);

// DQ(A) + DQ(B) → Q with per-tensor scales and zero points: QLinearAdd's inputs (A, A_scale,
// A_zero_point, B, B_scale, B_zero_point, C_scale, C_zero_point), bit-exact with the unfused
// steps (quantized_add.cc).
std::unique_ptr<Kernel> MakeQuantizedAdd(const Node& add);

// MaxPool (1-D or 2-D, no Indices output) on UINT8/INT8 values (quantized_pool.cc).
std::unique_ptr<Kernel> MakeQuantizedMaxPool(const Node& pool);

}  // namespace gebe::cpu
