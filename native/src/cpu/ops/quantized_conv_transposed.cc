#include "cpu/ops/quantized_conv_transposed.h"

#include <algorithm>
#include <cstring>
#include <vector>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "cpu/gemm/qgemm_kernels.h"
#include "cpu/gemm/sgemm.h"

namespace gebe::cpu {

namespace {

using qgemm_detail::ActiveKernels;

constexpr int64_t kChunk = 64;  // output positions per work item: a cache line of each output row (threads writing halves of one would share it)

#if defined(__SSE2__)
// 16 rows × W ≤ 16 columns of src (W bytes loaded per row, the rest of each vector zero) into W
// rows of 16 bytes at dst: four rounds of byte unpacks (a perfect shuffle each; four transpose).
template <int W>
inline void Transpose16(const uint8_t* src, int64_t src_ld, __m128i flip, uint8_t* dst, int64_t dst_ld) {
  __m128i a[16], b[16];
  for (int k = 0; k < 16; ++k) {
    const uint8_t* row = src + k * src_ld;
    if (W == 16) {
      a[k] = _mm_loadu_si128(reinterpret_cast<const __m128i*>(row));
    } else if (W == 8) {
      a[k] = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(row));
    } else {
      int32_t v;
      std::memcpy(&v, row, 4);
      a[k] = _mm_cvtsi32_si128(v);
    }
  }
  for (int round = 0; round < 4; ++round) {
    for (int k = 0; k < 8; ++k) {
      b[2 * k] = _mm_unpacklo_epi8(a[k], a[k + 8]);
      b[2 * k + 1] = _mm_unpackhi_epi8(a[k], a[k + 8]);
    }
    for (int k = 0; k < 16; ++k) a[k] = b[k];
  }
  for (int k = 0; k < W; ++k) _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + k * dst_ld), _mm_xor_si128(a[k], flip));
}
#endif

// dst[j · dst_ld + i] = src[i · src_ld + j] ^ flip for i < rows, j < cols: blocks of 16 rows by 16,
// 8 or 4 columns (a 7×7 or 14×14 plane's rows are short), scalar for the rest.
void TransposeBytes(const uint8_t* src, int64_t src_ld, int64_t rows, int64_t cols, uint8_t flip, uint8_t* dst, int64_t dst_ld) {
  int64_t i0 = 0;
#if defined(__SSE2__)
  const __m128i f = _mm_set1_epi8(char(flip));
  for (; i0 + 16 <= rows; i0 += 16) {
    int64_t j0 = 0;
    for (; j0 + 16 <= cols; j0 += 16) Transpose16<16>(src + i0 * src_ld + j0, src_ld, f, dst + j0 * dst_ld + i0, dst_ld);
    if (j0 + 8 <= cols) Transpose16<8>(src + i0 * src_ld + j0, src_ld, f, dst + j0 * dst_ld + i0, dst_ld), j0 += 8;
    if (j0 + 4 <= cols) Transpose16<4>(src + i0 * src_ld + j0, src_ld, f, dst + j0 * dst_ld + i0, dst_ld), j0 += 4;
    for (int64_t j = j0; j < cols; ++j)
      for (int64_t i = i0; i < i0 + 16; ++i) dst[j * dst_ld + i] = uint8_t(src[i * src_ld + j] ^ flip);
  }
#endif
  for (int64_t j = 0; j < cols; ++j)
    for (int64_t i = i0; i < rows; ++i) dst[j * dst_ld + i] = uint8_t(src[i * src_ld + j] ^ flip);
}

// The input channels last inside a border of the zero point: padded row r, column col, channel c
// at (r · wp + col) · c4 + c; channels cg .. c4 are 0 (their weights are 0 too).
struct ChannelsLast {
  int64_t hp = 0, wp = 0, c4 = 0;
};

void FillChannelsLast(const uint8_t* x, int64_t cg, const QConvGeometry& g, const ChannelsLast& xl, uint8_t flip, uint8_t zx,
                      uint8_t* d, int64_t r_begin, int64_t r_end) {
  // The input's rows and columns that land inside the buffer; everything else is border.
  const int64_t r0 = std::max<int64_t>(0, g.ph), r1 = std::min(xl.hp, g.ih + g.ph);
  const int64_t col0 = std::min(xl.wp, std::max<int64_t>(0, g.pw)), col1 = std::max(col0, std::min(xl.wp, g.iw + g.pw));
  const int64_t c4 = xl.c4, wp = xl.wp;
  // Border pixels: zx in the real channels, 0 in the padding ones (one memset for a whole border
  // row where there are none; per pixel otherwise: a call per interior pixel cost as much as the copy).
  auto border = [&](uint8_t* px, int64_t count) {
    if (c4 == cg) return (void)std::memset(px, zx, size_t(count * c4));
    for (int64_t i = 0; i < count; ++i, px += c4) {
      std::memset(px, zx, size_t(cg));
      std::memset(px + cg, 0, size_t(c4 - cg));
    }
  };
  for (int64_t r = r_begin; r < r_end; ++r) {
    uint8_t* row = d + r * wp * c4;
    if (r < r0 || r >= r1) {
      border(row, wp);
      continue;
    }
    border(row, col0);
    border(row + col1 * c4, wp - col1);
    if (col1 == col0) continue;
    if (c4 > cg)
      for (int64_t col = col0; col < col1; ++col) std::memset(row + col * c4 + cg, 0, size_t(c4 - cg));
    TransposeBytes(x + (r - g.ph) * g.iw + (col0 - g.pw), g.ih * g.iw, cg, col1 - col0, flip, row + col0 * c4, c4);
  }
}

}  // namespace

bool QTransposedPays(int64_t group, int64_t cg, int64_t m, int64_t taps, bool weight_zero_point) {
  if (!ActiveKernels().transposed_tile || group != 1 || weight_zero_point || m < 32) return false;
  int64_t c4 = (cg + 3) / 4 * 4;
  return c4 * 4 <= cg * 5 && taps * c4 <= kQgemmMaxK;  // at most a fifth of K padding
}

QTransposedWeights PackQTransposedWeights(const void* w, bool w_signed, int64_t m, int64_t cg, int64_t taps) {
  QTransposedWeights out;
  out.m = m;
  out.cg = cg;
  out.taps = taps;
  out.cquads = (cg + 3) / 4;
  const int64_t quads = out.taps * out.cquads, blocks = (m + kQTCols - 1) / kQTCols;
  out.packed = std::make_shared<AlignedBuffer>(size_t(std::max<int64_t>(1, blocks * quads * kQTCols * 4)));
  auto* packed = static_cast<int8_t*>(out.packed->data());
  std::memset(packed, 0, size_t(blocks * quads * kQTCols * 4));
  for (int64_t o = 0; o < m; ++o) {
    // Block b's quads hold its width (whole vectors of 16 channels) × 4 values each.
    int64_t b = o / kQTCols, j = o % kQTCols, width = std::min<int64_t>(kQTCols, (m - b * kQTCols + 15) / 16 * 16);
    int8_t* block = packed + b * quads * kQTCols * 4;
    for (int64_t c = 0; c < cg; ++c)
      for (int64_t t = 0; t < out.taps; ++t) {
        size_t at = size_t(((t * out.cquads + c / 4) * width + j) * 4 + c % 4);
        int64_t src = (o * cg + c) * out.taps + t;
        int32_t v = w_signed ? int32_t(static_cast<const int8_t*>(w)[src]) : int32_t(static_cast<const uint8_t*>(w)[src]) - 128;
        block[at] = int8_t(v);
      }
  }
  return out;
}

void QTransposedConv(const uint8_t* x, const QConvGeometry& g, uint8_t flip, uint8_t zx, const QTransposedWeights& w,
                     const QgemmRequant& rq, uint8_t* y, ThreadPool* pool) {
  const auto& kernels = ActiveKernels();
  const int64_t cg = w.cg, m = w.m, p = g.oh * g.ow, quads = w.taps * w.cquads;
  ChannelsLast xl;
  xl.hp = (g.oh - 1) * g.sh + (g.kh - 1) * g.dh + 1;
  xl.wp = (g.ow - 1) * g.sw + (g.kw - 1) * g.dw + 1;
  xl.c4 = w.cquads * 4;
  thread_local std::vector<uint8_t> channels_last;
  channels_last.resize(size_t(xl.hp * xl.wp * xl.c4));
  uint8_t* cl = channels_last.data();  // a plain pointer: a thread_local named in a lambda is the running thread's own
  auto fill = [&](int64_t r0, int64_t r1) { FillChannelsLast(x, cg, g, xl, flip, zx, cl, r0, r1); };
  // Rows here and positions below, one contiguous range per thread (ParallelForContiguous): each
  // thread reads the rows it copied, and writes the plane columns the next layer's copy reads there.
  ParallelForContiguous(pool, xl.hp, 1, fill);
  // Without column dilation a kernel row's taps are neighbouring pixels, so its K (kx-major, as
  // the weights are packed) is one contiguous run: one "tap" of kw · cquads quads per kernel row.
  const bool row_runs = g.dw == 1;
  const int64_t taps = row_runs ? g.kh : w.taps, cquads = row_runs ? g.kw * w.cquads : w.cquads;
  std::vector<int64_t> tap_offsets(static_cast<size_t>(taps));
  for (int64_t ky = 0; ky < g.kh; ++ky)
    for (int64_t kx = 0; kx < (row_runs ? 1 : g.kw); ++kx)
      tap_offsets[size_t(row_runs ? ky : ky * g.kw + kx)] = (ky * g.dh * xl.wp + kx * g.dw) * xl.c4;
  const int64_t chunks = (p + kChunk - 1) / kChunk, blocks = (m + kQTCols - 1) / kQTCols;
  const auto* packed = static_cast<const int8_t*>(w.packed->data());
  ParallelForContiguous(pool, chunks * blocks, 1, [&](int64_t item0, int64_t item1) {
    thread_local std::vector<int32_t> acc;
    thread_local std::vector<uint8_t> staged;
    acc.resize(size_t(kChunk * kQTCols));
    staged.resize(size_t(kChunk * kQTCols));
    for (int64_t item = item0; item < item1; ++item) {
      const int64_t b = item % blocks, p0 = (item / blocks) * kChunk, n = std::min(kChunk, p - p0);
      const int64_t ch0 = b * kQTCols, cols = std::min(kQTCols, m - ch0), v = (cols + 15) / 16;
      // Tiles of 5 or 6 positions rather than 6s and a short last one (49 = 4 × 6 + 5 × 5).
      const int64_t tiles = (n + kQTRows - 1) / kQTRows;
      const uint8_t* rows[kQTRows];
      for (int64_t t = 0, r0 = 0; t < tiles; ++t) {
        int64_t r = n / tiles + (t < n % tiles ? 1 : 0);
        for (int64_t i = 0; i < r; ++i) {
          int64_t pos = p0 + r0 + i, oh = pos / g.ow, ow = pos % g.ow;
          rows[i] = cl + (oh * g.sh * xl.wp + ow * g.sw) * xl.c4;
        }
        kernels.transposed_tile(rows, r, tap_offsets.data(), taps, cquads, packed + b * quads * kQTCols * 4, v,
                                acc.data() + r0 * kQTCols, kQTCols);
        r0 += r;
      }
      QgemmRequant q = rq;
      if (q.add) q.add += ch0;
      q.mul += ch0;
      if (q.bias) q.bias += ch0;
      kernels.requantize_columns(acc.data(), kQTCols, n, cols, q, staged.data(), kQTCols);
      TransposeBytes(staged.data(), kQTCols, n, cols, 0, y + ch0 * p + p0, p);
    }
  });
}

}  // namespace gebe::cpu
