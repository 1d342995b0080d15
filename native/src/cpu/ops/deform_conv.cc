// DeformConv (opsets 19 and 22; torchvision's deform_conv2d, DCNv1 and with a mask DCNv2), 2-D:
// each kernel tap reads the input at its regular position plus a learned fractional offset,
// bilinearly (a position outside the image reads zeros), times the tap's mask when given. Per
// image, where each tap reads is worked out once per offset group (Sample); per group, the
// sampled values form im2col's columns (taps × output positions) and one SGEMM with the group's
// weights makes the output, bias added after.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "cpu/gemm/sgemm.h"
#include "cpu/ops/op_util.h"

namespace gebe::cpu {

namespace {

// Where one tap reads at one output position: four neighbours' offsets within the plane and
// their bilinear weights (the mask folded in). A neighbour outside the plane has weight 0 (and
// offset 0, so reading it is harmless); a position a whole pixel or more outside reads zero:
// torchvision's deformable im2col, which ONNX Runtime's kernel follows. The same for every
// channel of an offset group, so it is worked out once per group, tap and position.
struct Sample {
  int32_t at[4];
  float weight[4];
};

Sample SampleAt(int64_t height, int64_t width, float h, float w, float scale) {
  Sample s{{0, 0, 0, 0}, {0.f, 0.f, 0.f, 0.f}};
  if (!(h > -1.f && w > -1.f && h < float(height) && w < float(width))) return s;  // NaN offsets read zero too
  const float hf = std::floor(h), wf = std::floor(w);
  const int64_t h0 = int64_t(hf), w0 = int64_t(wf), h1 = h0 + 1, w1 = w0 + 1;
  const float lh = h - hf, lw = w - wf, hh = 1.f - lh, hw = 1.f - lw;
  const bool top = h0 >= 0, bottom = h1 < height, left = w0 >= 0, right = w1 < width;
  if (top && left) s.at[0] = int32_t(h0 * width + w0), s.weight[0] = hh * hw * scale;
  if (top && right) s.at[1] = int32_t(h0 * width + w1), s.weight[1] = hh * lw * scale;
  if (bottom && left) s.at[2] = int32_t(h1 * width + w0), s.weight[2] = lh * hw * scale;
  if (bottom && right) s.at[3] = int32_t(h1 * width + w1), s.weight[3] = lh * lw * scale;
  return s;
}

class DeformConvKernel : public Kernel {
 public:
  DeformConvKernel(const Node& node, int64_t)
      : Kernel(node), group_(node.get_int("group", 1)), offset_group_(node.get_int("offset_group", 1)),
        kernel_(node.get_ints("kernel_shape")), strides_(node.get_ints("strides", {1, 1})), dilations_(node.get_ints("dilations", {1, 1})),
        pads_(node.get_ints("pads", {0, 0, 0, 0})) {
    if (group_ <= 0) Fail("group must be positive");
    if (offset_group_ <= 0) Fail("offset_group must be positive");
    if (strides_.size() != 2 || dilations_.size() != 2 || pads_.size() != 4 || (!kernel_.empty() && kernel_.size() != 2)) {
      Fail("only 2-D deformable convolution is supported (strides and dilations of 2 values, pads of 4)");
    }
    for (int64_t v : strides_)
      if (v <= 0) Fail("strides must be positive");
    for (int64_t v : dilations_)
      if (v <= 0) Fail("dilations must be positive");
    for (int64_t v : pads_)
      if (v < 0) Fail("pads must not be negative");
  }

  bool Infer(const std::vector<const TensorRef*>& in, std::vector<TensorRef>& out) override {
    const Geometry g = GeometryOf(in);
    out[0] = {DataType::kFloat32, {g.n, g.oc, g.oh, g.ow}, nullptr};
    return true;
  }

  void Run(const std::vector<const TensorRef*>& in, std::vector<TensorRef>& out, const RunContext& ctx) override {
    const Geometry g = GeometryOf(in);
    const int64_t taps = g.kh * g.kw, positions = g.oh * g.ow, cg = g.c / group_, ocg = g.oc / group_;
    const int64_t channels_per_offset = g.c / offset_group_;
    if (cg * taps * positions > int64_t(ctx.max_tensor_bytes / sizeof(float))) Fail("the sampled columns would exceed the session's largest tensor");
    if (g.h * g.w > std::numeric_limits<int32_t>::max()) Fail("input planes of 2^31 values or more are not supported");
    const float *x = in[0]->as<const float>(), *w = in[1]->as<const float>(), *offset = in[2]->as<const float>();
    const float* bias = in.size() > 3 && in[3] ? in[3]->as<const float>() : nullptr;
    const float* mask = in.size() > 4 && in[4] ? in[4]->as<const float>() : nullptr;
    float* y = out[0].as<float>();
    // Every column row is written before the GEMM reads it: the session's scratch, not zeroed.
    float* columns = ctx.scratch->Floats(size_t(cg * taps * positions));
    std::vector<Sample> samples(size_t(offset_group_ * taps * positions));
    for (int64_t n = 0; n < g.n; ++n) {
      // Each offset group's samples, per tap and output position.
      ParallelForOrInline(ctx.pool, offset_group_ * taps, 1, [&](int64_t r0, int64_t r1) {
        for (int64_t r = r0; r < r1; ++r) {
          const int64_t og = r / taps, tap = r % taps, i = tap / g.kw, j = tap % g.kw;
          const float* dy = offset + ((n * offset_group_ + og) * 2 * taps + 2 * tap) * positions;
          const float* dx = dy + positions;
          const float* m = mask ? mask + ((n * offset_group_ + og) * taps + tap) * positions : nullptr;
          Sample* out = samples.data() + r * positions;
          for (int64_t oy = 0; oy < g.oh; ++oy) {
            for (int64_t ox = 0; ox < g.ow; ++ox) {
              const int64_t p = oy * g.ow + ox;
              const float h = float(oy * strides_[0] - pads_[0] + i * dilations_[0]) + dy[p];
              const float w = float(ox * strides_[1] - pads_[1] + j * dilations_[1]) + dx[p];
              out[p] = SampleAt(g.h, g.w, h, w, m ? m[p] : 1.f);
            }
          }
        }
      });
      for (int64_t grp = 0; grp < group_; ++grp) {
        // Row (channel, tap) of the columns: that channel's samples at every output position.
        ParallelForOrInline(ctx.pool, cg * taps, std::max<int64_t>(1, kParallelGrain / std::max<int64_t>(1, 4 * positions)), [&](int64_t r0, int64_t r1) {
          for (int64_t r = r0; r < r1; ++r) {
            const int64_t c = grp * cg + r / taps, tap = r % taps;
            const float* plane = x + (n * g.c + c) * g.h * g.w;
            const Sample* at = samples.data() + ((c / channels_per_offset) * taps + tap) * positions;
            float* row = columns + r * positions;
            for (int64_t p = 0; p < positions; ++p) {
              const Sample& q = at[p];
              row[p] = q.weight[0] * plane[q.at[0]] + q.weight[1] * plane[q.at[1]] + q.weight[2] * plane[q.at[2]] + q.weight[3] * plane[q.at[3]];
            }
          }
        });
        float* yg = y + (n * g.oc + grp * ocg) * positions;
        Sgemm(false, false, ocg, positions, cg * taps, 1.f, w + grp * ocg * cg * taps, cg * taps, columns, positions, 0.f, yg,
              positions, PoolForProduct(ocg * positions * cg * taps, ctx.pool));
        if (bias) {
          for (int64_t o = 0; o < ocg; ++o) {
            const float b = bias[grp * ocg + o];
            for (int64_t p = 0; p < positions; ++p) yg[o * positions + p] += b;
          }
        }
      }
    }
  }

 private:
  struct Geometry {
    int64_t n, c, h, w, oc, kh, kw, oh, ow;
  };

  Geometry GeometryOf(const std::vector<const TensorRef*>& in) const {
    const TensorRef& x = Input(in, 0, "X");
    const TensorRef& w = Input(in, 1, "W");
    const TensorRef& offset = Input(in, 2, "offset");
    ExpectType(x, "X", {DataType::kFloat32});
    ExpectType(w, "W", {DataType::kFloat32});
    ExpectType(offset, "offset", {DataType::kFloat32});
    if (x.rank() != 4) Fail("only 2-D deformable convolution is supported: X must be [N, C, H, W]; shape " + ShapeToString(x.shape));
    if (w.rank() != 4) Fail("W must be [oC, C / group, kH, kW]; shape " + ShapeToString(w.shape));
    Geometry g{x.shape[0], x.shape[1], x.shape[2], x.shape[3], w.shape[0], w.shape[2], w.shape[3], 0, 0};
    if (!kernel_.empty() && (kernel_[0] != g.kh || kernel_[1] != g.kw)) {
      Fail("kernel_shape " + ShapeToString(kernel_) + " differs from W's " + ShapeToString({g.kh, g.kw}));
    }
    if (g.c % group_ != 0 || g.oc % group_ != 0) Fail("C (" + std::to_string(g.c) + ") and oC (" + std::to_string(g.oc) + ") must be multiples of group (" + std::to_string(group_) + ")");
    if (w.shape[1] != g.c / group_) Fail("W's second dim (" + std::to_string(w.shape[1]) + ") must be C / group = " + std::to_string(g.c / group_));
    if (g.c % offset_group_ != 0) Fail("C (" + std::to_string(g.c) + ") must be a multiple of offset_group (" + std::to_string(offset_group_) + ")");
    const int64_t span_h = dilations_[0] * (g.kh - 1) + 1, span_w = dilations_[1] * (g.kw - 1) + 1;
    g.oh = (g.h + pads_[0] + pads_[2] - span_h) / strides_[0] + 1;
    g.ow = (g.w + pads_[1] + pads_[3] - span_w) / strides_[1] + 1;
    if (g.h + pads_[0] + pads_[2] < span_h || g.w + pads_[1] + pads_[3] < span_w) {
      Fail("the padded input " + ShapeToString({g.h + pads_[0] + pads_[2], g.w + pads_[1] + pads_[3]}) + " is smaller than the dilated kernel " +
           ShapeToString({span_h, span_w}));
    }
    const int64_t taps = g.kh * g.kw;
    if (offset.shape != Shape{g.n, offset_group_ * 2 * taps, g.oh, g.ow}) {
      Fail("offset must be [N, offset_group * 2 * kH * kW, oH, oW] = " + ShapeToString({g.n, offset_group_ * 2 * taps, g.oh, g.ow}) + "; shape " +
           ShapeToString(offset.shape));
    }
    if (in.size() > 3 && in[3]) {
      ExpectType(*in[3], "B", {DataType::kFloat32});
      if (in[3]->shape != Shape{g.oc}) Fail("B must be [oC] = [" + std::to_string(g.oc) + "]; shape " + ShapeToString(in[3]->shape));
    }
    if (in.size() > 4 && in[4]) {
      ExpectType(*in[4], "mask", {DataType::kFloat32});
      if (in[4]->shape != Shape{g.n, offset_group_ * taps, g.oh, g.ow}) {
        Fail("mask must be [N, offset_group * kH * kW, oH, oW] = " + ShapeToString({g.n, offset_group_ * taps, g.oh, g.ow}) + "; shape " +
             ShapeToString(in[4]->shape));
      }
    }
    return g;
  }

  int64_t group_, offset_group_;
  std::vector<int64_t> kernel_, strides_, dilations_, pads_;
};

}  // namespace

GEBE_CPU_KERNEL("DeformConv", DeformConvKernel);

}  // namespace gebe::cpu
