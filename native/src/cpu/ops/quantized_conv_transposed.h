// Integer convolutions computed transposed on the integer GEMM's transposed tile
// (../gemm/qgemm_kernels.h, AVX-512 VNNI): output positions as rows, output channels as vector
// columns, as ONNX Runtime's NHWC QLinearConv does. The panel path's vectors run along positions:
// a 7×7 plane's 49 (63 over wide rows) fill 64 columns, a 14×14 plane's 224, and every block of
// columns is first packed (im2col interleaved into quads). Here the input is copied once per image
// into a zero-point-bordered channels-last buffer (channels padded to a multiple of 4 with zeros,
// which meet zero weights), so each position's im2col row is, tap by tap, a run of its channels
// read in place as quads: nothing is packed per block, any stride or dilation is a row offset, and
// 49 positions fill 9 tiles of 5 or 6 rows. The product is requantised per position row (vectors
// along channels) and transposed into the NCHW output. The accumulators are the panel path's,
// exactly, and the requantisation is the same arithmetic in the same order.
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

// Constant weights (m × cg × taps, one group) packed for the transposed tile: per block of
// kQTCols channels, per quad of K in (tap, channel) order, the block's channels × 4 INT8 values.
struct QTransposedWeights {
  int64_t m = 0, cg = 0, taps = 0, cquads = 0;
  std::shared_ptr<AlignedBuffer> packed;
};

// Whether a convolution goes this way, decided at load: the ISA has the transposed tile, one
// group, no weight zero point (quantize_static's symmetric INT8 weights), 32 or more output
// channels, and few enough input channels lost to the padding to 4 (a 3-channel stem's 7×7 taps
// would be a quarter zeros; the panel path wins there).
bool QTransposedPays(int64_t group, int64_t cg, int64_t m, int64_t taps, bool weight_zero_point);

// w as in PackQgemmWeights (INT8, or UINT8 normalised by − 128), m × cg × taps.
QTransposedWeights PackQTransposedWeights(const void* w, bool w_signed, int64_t m, int64_t cg, int64_t taps);

// One image: x (cg planes, sign bits flipped by `flip`, zero point zx after the flip) → y (m planes
// of 8-bit outputs), requantised by rq (per-channel arrays from channel 0; rq.zw null).
void QTransposedConv(const uint8_t* x, const QConvGeometry& g, uint8_t flip, uint8_t zx, const QTransposedWeights& w,
                     const QgemmRequant& rq, uint8_t* y, ThreadPool* pool);

}  // namespace gebe::cpu
