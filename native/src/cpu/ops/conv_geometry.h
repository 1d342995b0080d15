// Spatial geometry shared by Conv, ConvTranspose and the pooling operators: kernel, strides,
// dilations and pads resolved for a concrete input (auto_pad included).
#pragma once

#include <string>
#include <vector>

#include "cpu/ops/kernel.h"

namespace gebe::cpu {

struct ConvAttributes {
  std::string auto_pad;
  std::vector<int64_t> kernel, strides, dilations, pads;

  explicit ConvAttributes(const Node& node)
      : auto_pad(node.get_string("auto_pad", "NOTSET")),
        kernel(node.get_ints("kernel_shape")),
        strides(node.get_ints("strides")),
        dilations(node.get_ints("dilations")),
        pads(node.get_ints("pads")) {}
};

// Along one dim of a window (`in` input positions, `out` outputs, kernel k, stride s, dilation d,
// leading pad p): per kernel tap t, the outputs whose tap t reads inside the input,
// [lo[t], hi[t]) (empty where hi <= lo), so the loops over them need no bounds checks. Worked out
// in 128 bits: a model's dilation and pads may be anything positive.
struct TapRanges {
  std::vector<int64_t> lo, hi;
  TapRanges(int64_t in, int64_t out, int64_t k, int64_t s, int64_t d, int64_t p) : lo(size_t(k)), hi(size_t(k)) {
    for (int64_t t = 0; t < k; ++t) {
      const __int128 off = __int128(t) * d - p;  // input position of output 0's tap t
      const __int128 first = off >= 0 ? 0 : (-off + s - 1) / s, last = in - 1 - off < 0 ? 0 : (in - 1 - off) / s + 1;
      lo[size_t(t)] = int64_t(first < out ? first : out);
      hi[size_t(t)] = int64_t(last < out ? last : out);
    }
  }
  // Whether tap t reads inside the input for some output.
  bool Reaches(int64_t t) const { return lo[size_t(t)] < hi[size_t(t)]; }
};

// Along one dim, the length of a zero-bordered copy of the input that holds the whole input
// after its leading pad and every position a tap of an output reads: the larger of
// pad_begin + in and (out - 1)·stride + (k - 1)·dilation + 1. -1 when above `limit`: strides,
// dilations and pads come from the model unbounded, so it is worked out in 128 bits and no
// caller multiplies an extent it has not bounded.
inline int64_t BorderedExtent(int64_t in, int64_t out, int64_t k, int64_t stride, int64_t dilation, int64_t pad_begin,
                              int64_t limit) {
  const __int128 reach = __int128(out - 1) * stride + __int128(k - 1) * dilation + 1;
  const __int128 whole = __int128(in) + pad_begin;
  const __int128 extent = reach > whole ? reach : whole;
  return extent <= limit ? int64_t(extent) : -1;
}

struct ConvGeometry {
  int spatial = 0;
  std::vector<int64_t> in, out, kernel, stride, dilation, pad_begin, pad_end;
};

// A kernel_shape attribute must name the weights' own spatial dims: the weights are read with the
// kernel's extents, so others would read past them.
inline void CheckKernelMatchesWeights(const Kernel& k, const std::vector<int64_t>& kernel, const std::vector<int64_t>& from_weights) {
  if (kernel != from_weights) {
    throw EngineError(k.node().label() + ": kernel_shape " + ShapeToString(kernel) + " does not match the weights' spatial dims " +
                      ShapeToString(from_weights));
  }
}

// Every window extent, stride and dilation is positive.
inline void CheckPositiveWindow(const Kernel& k, const std::vector<int64_t>& kernel, const std::vector<int64_t>& strides,
                                const std::vector<int64_t>& dilations) {
  for (size_t i = 0; i < kernel.size(); ++i) {
    if (strides[i] <= 0 || dilations[i] <= 0 || kernel[i] <= 0) {
      throw EngineError(k.node().label() + ": kernel, strides and dilations must be positive");
    }
  }
}

// The start's share of `total` units of padding, as ONNX splits it for Conv's auto_pad and
// ConvTranspose's output_shape: the smaller half under SAME_UPPER, the larger one otherwise.
inline int64_t PadBegin(const std::string& auto_pad, int64_t total) {
  return auto_pad == "SAME_UPPER" ? total / 2 : total - total / 2;
}

// Resolves attributes against the input's spatial dims. `ceil_mode` is for pooling.
inline ConvGeometry ResolveGeometry(const Kernel& k, const ConvAttributes& a, const std::vector<int64_t>& in_spatial,
                                    const std::vector<int64_t>& kernel_from_weights, bool ceil_mode = false) {
  ConvGeometry g;
  g.spatial = int(in_spatial.size());
  size_t s = in_spatial.size();
  auto fail = [&](const std::string& why) { throw EngineError(k.node().label() + ": " + why); };
  g.in = in_spatial;
  g.kernel = a.kernel.empty() ? kernel_from_weights : a.kernel;
  if (g.kernel.size() != s) fail("kernel_shape has " + std::to_string(g.kernel.size()) + " dims but the input has " + std::to_string(s) + " spatial dims");
  if (!kernel_from_weights.empty()) CheckKernelMatchesWeights(k, g.kernel, kernel_from_weights);
  // assign() rather than "empty ? vector(s, 1) : attr": GCC 12 reports a false
  // -Wfree-nonheap-object on the conditional's temporary.
  g.stride = a.strides;
  if (g.stride.empty()) g.stride.assign(s, 1);
  g.dilation = a.dilations;
  if (g.dilation.empty()) g.dilation.assign(s, 1);
  if (g.stride.size() != s || g.dilation.size() != s) fail("strides and dilations need one entry per spatial dim");
  CheckPositiveWindow(k, g.kernel, g.stride, g.dilation);
  std::vector<int64_t> pads = a.pads;
  if (pads.empty()) pads.assign(2 * s, 0);
  if (pads.size() != 2 * s) fail("pads needs " + std::to_string(2 * s) + " entries");
  g.pad_begin.assign(s, 0);
  g.pad_end.assign(s, 0);
  g.out.assign(s, 0);
  for (size_t i = 0; i < s; ++i) {
    int64_t ext = g.dilation[i] * (g.kernel[i] - 1) + 1;
    if (a.auto_pad == "SAME_UPPER" || a.auto_pad == "SAME_LOWER") {
      g.out[i] = (g.in[i] + g.stride[i] - 1) / g.stride[i];
      int64_t total = std::max<int64_t>(0, (g.out[i] - 1) * g.stride[i] + ext - g.in[i]);
      g.pad_begin[i] = PadBegin(a.auto_pad, total);
      g.pad_end[i] = total - g.pad_begin[i];
    } else if (a.auto_pad == "VALID") {
      if (g.in[i] < ext) fail("the input's spatial size " + std::to_string(g.in[i]) + " is smaller than the kernel extent " + std::to_string(ext));
      g.out[i] = (g.in[i] - ext) / g.stride[i] + 1;
    } else if (a.auto_pad == "NOTSET" || a.auto_pad.empty()) {
      g.pad_begin[i] = pads[i];
      g.pad_end[i] = pads[i + s];
      int64_t span = g.in[i] + g.pad_begin[i] + g.pad_end[i] - ext;
      if (span < 0) fail("the padded input (" + std::to_string(g.in[i] + g.pad_begin[i] + g.pad_end[i]) + ") is smaller than the kernel extent " + std::to_string(ext));
      g.out[i] = (ceil_mode ? (span + g.stride[i] - 1) / g.stride[i] : span / g.stride[i]) + 1;
      // With ceil_mode the last window must start inside the input or the left padding.
      if (ceil_mode && (g.out[i] - 1) * g.stride[i] >= g.in[i] + g.pad_begin[i]) g.out[i]--;
    } else {
      fail("auto_pad '" + a.auto_pad + "' is not one of NOTSET, SAME_UPPER, SAME_LOWER, VALID");
    }
  }
  return g;
}

}  // namespace gebe::cpu
