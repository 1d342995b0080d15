// Depthwise convolution with the channels in the vector lanes (conv_depthwise_channels_last.cc),
// for kernels larger than 3×3 on AVX-512. A 7×7 plane's rows are 7 outputs wide, so the
// plane-by-plane kernels fill 7 of a vector's 16 lanes; 16 channels always fill them (ONNX
// Runtime's NCHWc layout has its depthwise convolutions vectorise this way too). With them a tap
// is one aligned load and one FMA for 16 outputs, where a plane's row needs a masked, unaligned
// one per row. Measured per node at 1 thread against the plane kernels (chains of four, the
// middle two timed): 5×5 on 7×7 0.33×, 7×7 on 7×7 0.26×, 5×5 on 14×14 0.58-0.60×, 5×5 on 28×28
// 0.77×, 7×7 on 56×56 0.61×; 3×3 1.04-1.22×, so 3×3 stays where it was.
#pragma once

#include <cstdint>

#include "cpu/ops/conv_im2col.h"
#include "cpu/ops/kernel.h"

namespace gebe::cpu {

// Whether this ISA has the kernels, and the geometry suits them: a depthwise convolution without
// channel multiplier, a kernel of more than 9 taps, and a zero-bordered input plane of at most
// kChannelsLastMaxPlane positions (16 channels of it, 256 KB, stay in L2).
constexpr int64_t kChannelsLastMaxPlane = 4096;
bool DepthwiseChannelsLastFits(const Geo2& g, int64_t multiplier);

// x: N × channels × ih × iw → y: N × channels × oh × ow, w: channels × kh × kw, bias may be null;
// act is applied to the finished planes (Relu and Clip on the way out).
void DepthwiseChannelsLast(const float* x, const float* w, const float* bias, float* y, int64_t images, int64_t channels,
                           const Geo2& g, const Activation& act, ThreadPool* pool);

}  // namespace gebe::cpu
