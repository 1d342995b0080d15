// Integer convolutions with a small output plane (the last stages of a CNN: 7×7, 14×14),
// computed transposed on the integer GEMM's transposed tile (../gemm/qgemm_kernels.h): output
// positions as rows, output channels as vector columns. The panel path's columns are positions,
// and a 7×7 plane's 49 (63 over wide rows) fill 64 columns; here 49 positions fill 9 tiles of 5 or
// 6 rows, and 512 channels are whole vectors. The input is copied once into a zero-point-bordered
// channels-last buffer (channels padded to a multiple of 4 with zeros, which meet zero weights), so
// each position's im2col row is, tap by tap, a run of its channels read in place as quads: nothing
// is packed per block. The product is requantised per position row (vectors along channels) and
// transposed into the NCHW output. The accumulators are the panel path's, exactly.
#pragma once

#include <cstdint>
#include <memory>

#include "cpu/gemm/qgemm.h"
#include "cpu/thread_pool.h"

namespace gebe::cpu {

// The 2-D view of a 1-D or 2-D convolution (quantized_conv.cc resolves it).
struct QConvGeometry {
  int64_t ih, iw, kh, kw, oh, ow, sh, sw, dh, dw, ph, pw;
};

// Constant weights (m × cg × kh × kw, one group) packed for the transposed tile: per block of
// kQTCols channels, per quad of K in (tap, channel) order, the block's channels × 4 INT8 values.
struct QSmallPlaneWeights {
  int64_t m = 0, cg = 0, taps = 0, cquads = 0;
  std::shared_ptr<AlignedBuffer> packed;
};

// Whether this convolution goes this way: the ISA has the transposed tile, one group, no weight
// zero point (quantize_static's symmetric INT8 weights), and an output plane of at most 14×14.
bool QSmallPlanePays(const QConvGeometry& g, int64_t group, int64_t cg, int64_t m, bool weight_zero_point);

// w as in PackQgemmWeights (INT8, or UINT8 normalised by − 128).
QSmallPlaneWeights PackQSmallPlaneWeights(const void* w, bool w_signed, int64_t m, int64_t cg, const QConvGeometry& g);

// One image: x (cg planes, sign bits flipped by `flip`, zero point zx after the flip) → y (m planes
// of 8-bit outputs), requantised by rq (per-channel arrays from channel 0; rq.zw null).
void QSmallPlaneConv(const uint8_t* x, const QConvGeometry& g, uint8_t flip, uint8_t zx, const QSmallPlaneWeights& w,
                     const QgemmRequant& rq, uint8_t* y, ThreadPool* pool);

}  // namespace gebe::cpu
