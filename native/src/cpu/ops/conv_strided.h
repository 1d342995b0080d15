// Stride-2 convolutions with few input taps, computed directly (conv_strided.cc, the AVX-512 row
// kernel in conv_strided_avx512.cc): the stems of the mobile and detection nets (3 → 16 or 32
// channels, 3×3, stride 2, at 224² or 640²) and the thin stride-2 convs after them. Their im2col
// is only a few times the input yet each of its columns feeds few output channels, so generating
// and packing it cost about as much as the multiply-adds. Here output positions are the vector
// lanes: for every tap, 16 outputs' inputs are the even lanes of two loads from one input row
// (one permute), multiplied by each of 16 output channels' weight for that tap (a broadcast from
// the packed weights), so the output comes out in NCHW with no copy in or out.
#pragma once

#include <cstdint>
#include <vector>

#include "cpu/aligned_vector.h"
#include "cpu/ops/conv_depthwise_rows.h"
#include "cpu/ops/conv_im2col.h"
#include "cpu/ops/conv_prepacked.h"
#include "cpu/ops/kernel.h"

namespace gebe::cpu {

// Output channels a kernel call computes (16 accumulators, each 16 positions of one channel); a
// group's last block may hold 8 (24 or 40 channels: a ShuffleNet stem).
constexpr int64_t kStridedChannels = 16;
// Largest kernel extent (kh and kw) the row kernel takes: it keeps its edge masks per kernel
// column and the input rows it reads per kernel row.
constexpr int64_t kStridedMaxKernel = 7;

// One output row of a block of `channels` output channels of one group of one image.
struct StridedRowArgs {
  const float* x;         // the group's cg input planes, ih × iw each
  const float* w;         // the block's packed weights: cg · kh · kw taps × channels
  const float* bias;      // `channels` values, or null
  const float* residual;  // laid out as y, or null: added before the clamp
  float* y;               // channel 0 of the block at this row's first output; channels ohw apart
  int64_t cg, ohw;
  int64_t channels;       // kStridedChannels, or 8 for a group's last block
  Geo2 g;
  RowClamp clamp;
};
using StridedRowFn = void (*)(const StridedRowArgs& a, int64_t oh);

// The ISA's row kernel: AVX-512's, nullptr elsewhere.
StridedRowFn Avx512StridedRow();

// Whether the direct path suits g (a 2-D convolution of cg input and mg output channels a group):
// this ISA has the kernel, both strides are 2, the output channels come in blocks of 16 (the last
// may be 8), rows of
// at least 28 outputs fill the vectors, and the kernel is wider than 1×1 and its taps
// (cg · kh · kw) few enough that a GEMM's blocking would not pay back its im2col.
bool StridedDirectPays(const Geo2& g, int64_t cg, int64_t mg);

// W (groups · mg × cg × kh × kw) as each block of 16 (or 8) output channels reads it, tap-major: packed
// on first use and kept while W and the kernel's extent are the same.
class StridedWeights {
 public:
  const float* For(const float* w, int64_t groups, int64_t mg, int64_t cg, int64_t taps);

 private:
  const float* source_ = nullptr;
  int64_t size_ = 0;
  AlignedVector<float> packed_;
};

// The convolution args describes (not pooled; its weights from `w`, uncropped), with bias,
// residual and activation.
void RunStridedDirect(const PrepackedConvArgs& args, const float* w, StridedWeights* weights, const RunContext& ctx);

}  // namespace gebe::cpu
