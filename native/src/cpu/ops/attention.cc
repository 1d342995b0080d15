// The transformer operators of opsets 23 to 25 that torch's exporter writes for
// scaled_dot_product_attention and that LLM exports use beside it: Attention (softmax(Q·Kᵀ·scale +
// bias)·V per head, with grouped-query heads, a key/value cache, causal and padding masks) and
// RotaryEmbedding (RoPE). Both take [B, H, S, D] tensors or [B, S, H·D] ones with the head count
// as an attribute; HeadRows says where a head's rows are in either, so neither is transposed.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "cpu/gemm/sgemm.h"
#include "cpu/ops/op_util.h"
#include "cpu/ops/vector_math.h"

namespace gebe::cpu {

namespace {

// The rows of each head of a [B, H, S, D] tensor (4-D) or a [B, S, H·D] one (3-D: a row holds
// every head's D values side by side).
struct HeadRows {
  int64_t batch = 0, heads = 0, seq = 0, width = 0;
  bool packed = false;  // 3-D
  int64_t Start(int64_t b, int64_t h) const { return packed ? (b * seq * heads + h) * width : (b * heads + h) * seq * width; }
  int64_t Stride() const { return packed ? heads * width : width; }
};

// The layout of input `what`: 4-D as it is, 3-D split into `heads` (an attribute; 0 when absent).
HeadRows HeadRowsOf(const Kernel& k, const TensorRef& t, const char* what, int64_t heads, const char* heads_attribute) {
  HeadRows r;
  if (t.rank() == 4) {
    r = {t.shape[0], t.shape[1], t.shape[2], t.shape[3], false};
  } else if (t.rank() == 3) {
    if (heads <= 0) {
      throw EngineError(k.node().label() + ": " + what + " is 3-D " + ShapeToString(t.shape) + ", so the " + heads_attribute +
                        " attribute must give its head count");
    }
    if (t.shape[2] % heads != 0) {
      throw EngineError(k.node().label() + ": " + what + "'s last dim (" + std::to_string(t.shape[2]) + ") is not a multiple of " +
                        heads_attribute + " (" + std::to_string(heads) + ")");
    }
    r = {t.shape[0], heads, t.shape[1], t.shape[2] / heads, true};
  } else {
    throw EngineError(k.node().label() + ": " + what + " must be 3-D or 4-D; shape " + ShapeToString(t.shape));
  }
  return r;
}

// RotaryEmbedding (opset 23): each head's first rotary_embedding_dim values (all by default) are
// rotated pairwise by the angle of the token's position: pairs (i, i + d/2), or (2i, 2i + 1) when
// interleaved. cos_cache and sin_cache are [max_position + 1, d/2], read at position_ids [B, S],
// or [B, S, d/2] when there are no position ids.
class RotaryEmbeddingKernel : public Kernel {
 public:
  RotaryEmbeddingKernel(const Node& node, int64_t)
      : Kernel(node), heads_(node.get_int("num_heads", 0)), rotary_dim_(node.get_int("rotary_embedding_dim", 0)),
        interleaved_(node.get_int("interleaved", 0) != 0) {
    if (heads_ < 0) Fail("num_heads must not be negative");
    if (rotary_dim_ < 0) Fail("rotary_embedding_dim must not be negative");
  }
  bool Infer(const std::vector<const TensorRef*>& in, std::vector<TensorRef>& out) override {
    const TensorRef& x = Input(in, 0, "X");
    const TensorRef& cos = Input(in, 1, "cos_cache");
    const TensorRef& sin = Input(in, 2, "sin_cache");
    ExpectType(x, "X", {DataType::kFloat32});
    ExpectType(cos, "cos_cache", {DataType::kFloat32});
    ExpectType(sin, "sin_cache", {DataType::kFloat32});
    const HeadRows rows = HeadRowsOf(*this, x, "X", heads_, "num_heads");
    const int64_t dim = RotaryDim(rows);
    if (cos.shape != sin.shape) Fail("cos_cache " + ShapeToString(cos.shape) + " and sin_cache " + ShapeToString(sin.shape) + " must have one shape");
    const TensorRef* positions = in.size() > 3 ? in[3] : nullptr;
    if (positions) {
      ExpectType(*positions, "position_ids", {DataType::kInt64});
      if (positions->shape != Shape{rows.batch, rows.seq}) {
        Fail("position_ids must be [batch, sequence] = " + ShapeToString({rows.batch, rows.seq}) + "; shape " + ShapeToString(positions->shape));
      }
      if (cos.rank() != 2 || cos.shape[1] != dim / 2) {
        Fail("with position_ids, cos_cache and sin_cache must be [positions, " + std::to_string(dim / 2) + "]; shape " + ShapeToString(cos.shape));
      }
    } else if (cos.shape != Shape{rows.batch, rows.seq, dim / 2}) {
      Fail("without position_ids, cos_cache and sin_cache must be [batch, sequence, rotary dim / 2] = " +
           ShapeToString({rows.batch, rows.seq, dim / 2}) + "; shape " + ShapeToString(cos.shape));
    }
    out[0] = {x.dtype, x.shape, nullptr};
    return true;
  }
  void Run(const std::vector<const TensorRef*>& in, std::vector<TensorRef>& out, const RunContext& ctx) override {
    const TensorRef& x = *in[0];
    const HeadRows rows = HeadRowsOf(*this, x, "X", heads_, "num_heads");
    const int64_t dim = RotaryDim(rows), half = dim / 2;
    const TensorRef* positions = in.size() > 3 ? in[3] : nullptr;
    const int64_t cached = positions ? in[1]->shape[0] : 0;
    if (positions) {
      // Client values index the caches: each must name a row of them.
      const int64_t* p = positions->as<const int64_t>();
      for (int64_t i = 0; i < positions->count(); ++i) {
        if (p[i] < 0 || p[i] >= cached) {
          Fail("position_ids[" + std::to_string(i / rows.seq) + ", " + std::to_string(i % rows.seq) + "] is " + std::to_string(p[i]) +
               ", outside the caches' " + std::to_string(cached) + " positions");
        }
      }
    }
    const float *px = x.as<const float>(), *pcos = in[1]->as<const float>(), *psin = in[2]->as<const float>();
    float* py = out[0].as<float>();
    const int64_t count = rows.batch * rows.seq * rows.heads;
    ctx.pool->ParallelFor(count, std::max<int64_t>(1, kParallelGrain / std::max<int64_t>(1, rows.width)), [&](int64_t r0, int64_t r1) {
      for (int64_t r = r0; r < r1; ++r) {
        const int64_t h = r % rows.heads, s = (r / rows.heads) % rows.seq, b = r / (rows.heads * rows.seq);
        const int64_t at = rows.Start(b, h) + s * rows.Stride();
        const int64_t cache_row = positions ? positions->as<const int64_t>()[b * rows.seq + s] : b * rows.seq + s;
        const float *c = pcos + cache_row * half, *sn = psin + cache_row * half, *xr = px + at;
        float* yr = py + at;
        if (interleaved_) {
          for (int64_t i = 0; i < half; ++i) {
            const float x1 = xr[2 * i], x2 = xr[2 * i + 1];
            yr[2 * i] = c[i] * x1 - sn[i] * x2;
            yr[2 * i + 1] = sn[i] * x1 + c[i] * x2;
          }
        } else {
          for (int64_t i = 0; i < half; ++i) {
            const float x1 = xr[i], x2 = xr[i + half];
            yr[i] = c[i] * x1 - sn[i] * x2;
            yr[i + half] = sn[i] * x1 + c[i] * x2;
          }
        }
        std::memcpy(yr + dim, xr + dim, size_t(rows.width - dim) * sizeof(float));
      }
    });
  }

 private:
  int64_t RotaryDim(const HeadRows& rows) const {
    const int64_t dim = rotary_dim_ == 0 ? rows.width : rotary_dim_;
    if (dim > rows.width) Fail("rotary_embedding_dim (" + std::to_string(dim) + ") is larger than the head size (" + std::to_string(rows.width) + ")");
    if (dim % 2 != 0) Fail("the rotated part of each head (" + std::to_string(dim) + " values) must have an even size");
    return dim;
  }

  int64_t heads_, rotary_dim_;
  bool interleaved_;
};

// Attention (opsets 23 to 25). Per batch and query head, by blocks of query rows: scores =
// Q·Kᵀ·scale (a GEMM), then softcap, the bias (a float mask added, a boolean mask's false and the
// causal, padding and sliding-window limits masked), softmax, and Y = P·V (a second GEMM). A query row whose every key is masked
// gives a zero row, as the operator's text asks. The optional fourth output is the scores at the
// stage qk_matmul_output_mode names. softmax_precision is accepted and computed in FP32: every
// float inside the engine is.
class AttentionKernel : public Kernel {
 public:
  AttentionKernel(const Node& node, int64_t opset)
      : Kernel(node), opset_(opset), causal_(node.get_int("is_causal", 0) != 0), q_heads_(node.get_int("q_num_heads", 0)),
        kv_heads_(node.get_int("kv_num_heads", 0)), qk_mode_(node.get_int("qk_matmul_output_mode", 0)),
        softcap_(node.get_float("softcap", 0.f)), scale_(node.has("scale") ? node.get_float("scale", 0.f) : 0.f), has_scale_(node.has("scale")),
        left_window_(node.get_int("left_window_size", -1)), right_window_(node.get_int("right_window_size", -1)) {
    if (left_window_ < -1 || right_window_ < -1) Fail("left_window_size and right_window_size must be -1 (unbounded) or 0 and up");
    if (qk_mode_ < 0 || qk_mode_ > 3) Fail("qk_matmul_output_mode must be 0, 1, 2 or 3, not " + std::to_string(qk_mode_));
    if (softcap_ < 0) Fail("softcap must not be negative");
    if (node.has("softmax_precision")) {
      const int64_t p = node.get_int("softmax_precision", 1);
      if (p != 1 && p != 10 && p != 11 && p != 16) Fail("softmax_precision must be FLOAT, FLOAT16, DOUBLE or BFLOAT16 (1, 10, 11 or 16), not " + std::to_string(p));
    }
  }

  bool Infer(const std::vector<const TensorRef*>& in, std::vector<TensorRef>& out) override {
    const Geometry g = GeometryOf(in);
    const TensorRef& q = *in[0];
    out[0] = {DataType::kFloat32, q.rank() == 4 ? Shape{g.q.batch, g.q.heads, g.q.seq, g.v.width} : Shape{g.q.batch, g.q.seq, g.q.heads * g.v.width}, nullptr};
    if (out.size() > 1) out[1] = {DataType::kFloat32, {g.q.batch, g.k.heads, g.total, g.k.width}, nullptr};
    if (out.size() > 2) out[2] = {DataType::kFloat32, {g.q.batch, g.k.heads, g.total, g.v.width}, nullptr};
    if (out.size() > 3) out[3] = {DataType::kFloat32, {g.q.batch, g.q.heads, g.q.seq, g.total}, nullptr};
    return true;
  }

  void Run(const std::vector<const TensorRef*>& in, std::vector<TensorRef>& out, const RunContext& ctx) override {
    const Geometry g = GeometryOf(in);
    const int64_t sq = g.q.seq, total = g.total, d = g.q.width, dv = g.v.width;
    if (std::min(sq, kQueryBlock) * total > int64_t(ctx.max_tensor_bytes / sizeof(float))) {  // the smallest block BlockRows makes
      Fail(std::to_string(total) + " keys make a block's scores larger than the session's largest tensor");
    }
    const TensorRef* nonpad = NonPad(in);
    std::vector<int64_t> valid_keys(size_t(g.q.batch), total);
    if (nonpad) {
      for (int64_t b = 0; b < g.q.batch; ++b) {
        const int64_t n = nonpad->as<const int64_t>()[b];
        if (n < 0 || n > total) Fail("nonpad_kv_seqlen[" + std::to_string(b) + "] is " + std::to_string(n) + ", outside 0.." + std::to_string(total));
        valid_keys[size_t(b)] = n;
      }
    }
    // Keys and values with the cache in front: [B, Hkv, total, D] in the present outputs (or a
    // buffer when they are not asked for); without a cache K and V are read where they are.
    std::vector<float> k_buffer, v_buffer;
    HeadRows k_rows = g.k, v_rows = g.v;
    const float* pk = Joined(in[1], Past(in, 4), g.k, out.size() > 1 ? &out[1] : nullptr, k_buffer, &k_rows, ctx.pool);
    const float* pv = Joined(in[2], Past(in, 5), g.v, out.size() > 2 ? &out[2] : nullptr, v_buffer, &v_rows, ctx.pool);
    const float* pq = in[0]->as<const float>();
    float* py = out[0].as<float>();
    float* qk_out = out.size() > 3 && out[3].data ? out[3].as<float>() : nullptr;
    const HeadRows y_rows{g.q.batch, g.q.heads, sq, dv, g.q.packed};
    const float scale = has_scale_ ? scale_ : 1.f / std::sqrt(float(d));
    const int64_t group = g.q.heads / g.k.heads;
    const Mask mask = MaskOf(in, g);
    const int64_t past = Past(in, 4) ? Past(in, 4)->shape[2] : 0;

    ForEachProduct(g.q.batch * g.q.heads, sq * total * (d + dv), ctx.pool, [&](int64_t t, ThreadPool* pool) {
      const int64_t b = t / g.q.heads, h = t % g.q.heads, kv = h / group;
      float* qk = qk_out ? qk_out + t * sq * total : nullptr;
      // The keys each query row may see, [first, last): padding ends them at the valid count;
      // with a cache, query i is at position past + i (or, with nonpad_kv_seqlen, at valid - sq
      // + i) and, causal, sees keys up to it; a sliding window (opset 25) keeps the keys from
      // position - left to position + right.
      const int64_t valid = valid_keys[size_t(b)];
      const int64_t offset = nonpad ? valid - sq : past;
      std::vector<int64_t> first(static_cast<size_t>(sq)), last(static_cast<size_t>(sq));
      for (int64_t i = 0; i < sq; ++i) {
        const int64_t position = offset + i;
        int64_t end = causal_ ? std::min(valid, position + 1) : valid;
        if (right_window_ >= 0) end = std::min(end, position + right_window_ + 1);
        last[size_t(i)] = std::max<int64_t>(0, end);
        first[size_t(i)] = std::min(last[size_t(i)], left_window_ >= 0 ? std::max<int64_t>(0, position - left_window_) : 0);
      }
      // Blocks of query rows, each through every stage: only a block's scores are held (not the
      // head's whole sq x total), and unless the raw scores are asked for (qk_matmul_output modes
      // 0 and 1) a block multiplies only the keys its rows may see, so a causal prefill skips
      // about half the products. The keys outside a row's range are masked whatever was there.
      const bool raw_wanted = qk != nullptr && qk_mode_ < 2;
      const int64_t block = BlockRows(sq, total, raw_wanted);
      std::vector<float> scores(static_cast<size_t>(block * total));
      for (int64_t i0 = 0; i0 < sq; i0 += block) {
        const int64_t i1 = std::min(sq, i0 + block), rows = i1 - i0;
        int64_t lo = raw_wanted ? 0 : total, hi = raw_wanted ? total : 0;
        for (int64_t i = i0; i < i1 && !raw_wanted; ++i) {
          if (last[size_t(i)] > first[size_t(i)]) {
            lo = std::min(lo, first[size_t(i)]);
            hi = std::max(hi, last[size_t(i)]);
          }
        }
        float* s = scores.data();
        float* qk_rows = qk ? qk + i0 * total : nullptr;
        if (hi > lo) {
          Sgemm(false, true, rows, hi - lo, d, scale, pq + g.q.Start(b, h) + i0 * g.q.Stride(), g.q.Stride(),
                pk + k_rows.Start(b, kv) + lo * k_rows.Stride(), k_rows.Stride(), 0.f, s + lo, total, pool);
        }
        if (qk && qk_mode_ == 0) std::copy(s, s + rows * total, qk_rows);  // raw_wanted: every key computed
        if (softcap_ > 0 && hi > lo) {
          for (int64_t i = 0; i < rows; ++i) {
            float* seg = s + i * total + lo;
            for (int64_t j = 0; j < hi - lo; ++j) seg[j] /= softcap_;
            TanhArray(seg, seg, hi - lo);
            for (int64_t j = 0; j < hi - lo; ++j) seg[j] *= softcap_;
          }
        }
        if (qk && qk_mode_ == 1) std::copy(s, s + rows * total, qk_rows);
        std::vector<uint8_t> keyless(static_cast<size_t>(rows));  // rows the masks leave no key
        for (int64_t i = 0; i < rows; ++i) {
          float* row = s + i * total;
          const int64_t f = first[size_t(i0 + i)], l = last[size_t(i0 + i)];
          keyless[size_t(i)] = mask.Apply(row, b, h, i0 + i, f, l) == 0;
          std::fill(row, row + f, kMasked);
          std::fill(row + l, row + total, kMasked);
        }
        if (qk && qk_mode_ == 2) std::copy(s, s + rows * total, qk_rows);
        for (int64_t i = 0; i < rows; ++i) {
          float* row = s + i * total;
          const int64_t f = first[size_t(i0 + i)], l = last[size_t(i0 + i)];
          // A row with no key left gives zeros, as does one that a float mask's -inf emptied (a
          // NaN instead propagates through SoftmaxRow). Masked keys weigh 0 either way.
          const bool empty = keyless[size_t(i)] || (MaxSkippingNaN(row + f, l - f) == -std::numeric_limits<float>::infinity() && !HasNaN(row + f, l - f));
          if (empty) {
            std::fill(row, row + total, 0.f);
            continue;
          }
          SoftmaxRow(row + f, nullptr, 1.f, row + f, l - f);
          std::fill(row, row + f, 0.f);
          std::fill(row + l, row + total, 0.f);
        }
        if (qk && qk_mode_ == 3) std::copy(s, s + rows * total, qk_rows);
        // Y's rows: P·V over the block's keys (none: Sgemm over no keys writes zeros).
        const int64_t k0 = std::min(lo, total), keys = std::max<int64_t>(0, hi - lo);
        Sgemm(false, false, rows, dv, keys, 1.f, s + k0, total, pv + v_rows.Start(b, kv) + k0 * v_rows.Stride(), v_rows.Stride(), 0.f,
              py + y_rows.Start(b, h) + i0 * y_rows.Stride(), y_rows.Stride(), pool);
      }
    });
  }

 private:
  struct Geometry {
    HeadRows q, k, v;
    int64_t total = 0;  // keys: the cache's and the new ones
  };

  // A masked key's score: the lowest float, as ONNX Runtime writes it (mode 2's output shows it),
  // rather than -inf; its exponential is 0 all the same.
  static constexpr float kMasked = std::numeric_limits<float>::lowest();
  // Query rows a block takes through the stages (its scores the only ones held at once): 32 where
  // the rows' key ranges differ (causal, windows), so each block multiplies only the keys its rows
  // see; otherwise as many rows as kBlockScores floats hold (all of a ViT's 197 queries: each
  // block packs K and V again for its GEMMs, and seven blocks of 32 made that head 1.3-1.4x slower).
  static constexpr int64_t kQueryBlock = 32;
  static constexpr int64_t kBlockScores = int64_t(1) << 20;

  int64_t BlockRows(int64_t sq, int64_t total, bool every_key) const {
    const bool ranges_differ = !every_key && (causal_ || left_window_ >= 0 || right_window_ >= 0);
    const int64_t rows = ranges_differ ? kQueryBlock : std::max(kQueryBlock, kBlockScores / std::max<int64_t>(1, total));
    return std::max<int64_t>(1, std::min(sq, rows));
  }

  // attn_mask as the bias of one query row: FP32 added, BOOL false masking the key, broadcast over
  // [B, Hq, Sq, total]; from opset 24 a last dim shorter than total leaves the keys after it out.
  struct Mask {
    const TensorRef* t = nullptr;
    std::vector<int64_t> strides;  // per dim of [B, Hq, Sq, keys]; 0 where broadcast
    int64_t keys = 0;              // the mask's last dim as given (1: one value for every key)

    // Applies the mask to the row's keys [first, limit) (those the causal, padding and window
    // limits leave) and masks those of them it does not cover; returns how many keys it leaves.
    int64_t Apply(float* row, int64_t b, int64_t h, int64_t i, int64_t first, int64_t limit) const {
      if (!t) return limit - first;
      const int64_t at = b * strides[0] + h * strides[1] + i * strides[2];
      const int64_t covered = std::max(first, keys == 1 ? limit : std::min(keys, limit));
      int64_t left = covered - first;
      if (t->dtype == DataType::kBool) {
        const uint8_t* m = t->as<const uint8_t>() + at;
        for (int64_t j = first; j < covered; ++j) {
          if (!m[j * strides[3]]) {
            row[j] = kMasked;
            --left;
          }
        }
      } else {
        const float* m = t->as<const float>() + at;
        for (int64_t j = first; j < covered; ++j) row[j] += m[j * strides[3]];
      }
      std::fill(row + covered, row + limit, kMasked);
      return left;
    }
  };

  static bool HasNaN(const float* x, int64_t n) {
    for (int64_t i = 0; i < n; ++i)
      if (std::isnan(x[i])) return true;
    return false;
  }

  static const TensorRef* Past(const std::vector<const TensorRef*>& in, size_t i) { return in.size() > i ? in[i] : nullptr; }
  const TensorRef* NonPad(const std::vector<const TensorRef*>& in) const { return opset_ >= 24 ? Past(in, 6) : nullptr; }

  Geometry GeometryOf(const std::vector<const TensorRef*>& in) const {
    const TensorRef& q = Input(in, 0, "Q");
    const TensorRef& k = Input(in, 1, "K");
    const TensorRef& v = Input(in, 2, "V");
    ExpectType(q, "Q", {DataType::kFloat32});
    ExpectType(k, "K", {DataType::kFloat32});
    ExpectType(v, "V", {DataType::kFloat32});
    if (q.rank() != k.rank() || q.rank() != v.rank()) {
      Fail("Q, K and V must all be 3-D or all 4-D; shapes " + ShapeToString(q.shape) + ", " + ShapeToString(k.shape) + ", " + ShapeToString(v.shape));
    }
    Geometry g{HeadRowsOf(*this, q, "Q", q_heads_, "q_num_heads"), HeadRowsOf(*this, k, "K", kv_heads_, "kv_num_heads"),
               HeadRowsOf(*this, v, "V", kv_heads_, "kv_num_heads")};
    if (g.k.batch != g.q.batch || g.v.batch != g.q.batch) Fail("Q, K and V must have one batch size; shapes " + ShapeToString(q.shape) + ", " + ShapeToString(k.shape) + ", " + ShapeToString(v.shape));
    if (g.k.heads != g.v.heads || g.k.seq != g.v.seq) Fail("K and V must have the same heads and sequence length; shapes " + ShapeToString(k.shape) + ", " + ShapeToString(v.shape));
    if (g.q.width != g.k.width) Fail("Q's head size (" + std::to_string(g.q.width) + ") differs from K's (" + std::to_string(g.k.width) + ")");
    if (g.k.heads == 0 || g.q.heads % g.k.heads != 0) {
      Fail("the query heads (" + std::to_string(g.q.heads) + ") must be a multiple of the key/value heads (" + std::to_string(g.k.heads) + ")");
    }
    const TensorRef *past_k = Past(in, 4), *past_v = Past(in, 5);
    int64_t past = 0;
    if ((past_k == nullptr) != (past_v == nullptr)) Fail("past_key and past_value must be given together");
    if (past_k) {
      ExpectType(*past_k, "past_key", {DataType::kFloat32});
      ExpectType(*past_v, "past_value", {DataType::kFloat32});
      past = past_k->rank() == 4 ? past_k->shape[2] : -1;
      if (past_k->shape != Shape{g.q.batch, g.k.heads, past, g.k.width}) {
        Fail("past_key must be [batch, kv heads, past, head size] = [" + std::to_string(g.q.batch) + ", " + std::to_string(g.k.heads) + ", past, " +
             std::to_string(g.k.width) + "]; shape " + ShapeToString(past_k->shape));
      }
      if (past_v->shape != Shape{g.q.batch, g.k.heads, past, g.v.width}) {
        Fail("past_value must be [batch, kv heads, past, v head size] = " + ShapeToString({g.q.batch, g.k.heads, past, g.v.width}) + "; shape " +
             ShapeToString(past_v->shape));
      }
    }
    g.total = past + g.k.seq;
    if (const TensorRef* nonpad = NonPad(in)) {
      ExpectType(*nonpad, "nonpad_kv_seqlen", {DataType::kInt64});
      if (past_k) Fail("nonpad_kv_seqlen cannot be used with past_key and past_value");
      if (nonpad->shape != Shape{g.q.batch}) Fail("nonpad_kv_seqlen must be [batch] = [" + std::to_string(g.q.batch) + "]; shape " + ShapeToString(nonpad->shape));
    }
    if (in.size() > 3 && in[3]) CheckMask(*in[3], g);
    return g;
  }

  void CheckMask(const TensorRef& m, const Geometry& g) const {
    ExpectType(m, "attn_mask", {DataType::kFloat32, DataType::kBool});
    const Shape full{g.q.batch, g.q.heads, g.q.seq, g.total};
    if (m.rank() > 4 || m.rank() == 0) Fail("attn_mask must have 1 to 4 dims; shape " + ShapeToString(m.shape));
    for (size_t i = 0; i < m.shape.size(); ++i) {
      const size_t at = 4 - m.shape.size() + i;
      const int64_t dim = m.shape[i];
      const bool last = at == 3;
      const bool fits = dim == 1 || dim == full[at] || (last && opset_ >= 24 && dim < full[at]);
      if (!fits) {
        Fail("attn_mask " + ShapeToString(m.shape) + " does not broadcast to [batch, q heads, q sequence, keys] = " + ShapeToString(full) +
             (last && opset_ < 24 ? " (a shorter key dim needs opset 24)" : ""));
      }
    }
  }

  Mask MaskOf(const std::vector<const TensorRef*>& in, const Geometry& g) const {
    Mask mask;
    if (in.size() <= 3 || !in[3]) return mask;
    mask.t = in[3];
    mask.strides = BroadcastStrides(in[3]->shape, Shape(4, 0));  // against [B, Hq, Sq, keys]: only the rank counts
    mask.keys = in[3]->shape.back();  // CheckMask: 1 to 4 dims
    return mask;
  }

  // K or V with the cache in front, as [B, Hkv, total, width], written into `present` when it is
  // asked for and otherwise into `buffer`; without a cache and without `present`, the input itself.
  const float* Joined(const TensorRef* now, const TensorRef* past, const HeadRows& rows, TensorRef* present, std::vector<float>& buffer,
                      HeadRows* joined_rows, ThreadPool* pool) const {
    const bool want = present != nullptr && present->data != nullptr;
    if (!past && !want) return now->as<const float>();
    const int64_t prior = past ? past->shape[2] : 0, total = prior + rows.seq;
    float* dst;
    if (want) {
      dst = present->as<float>();
    } else {
      buffer.resize(size_t(rows.batch * rows.heads * total * rows.width));
      dst = buffer.data();
    }
    // A copy bound by memory bandwidth (a decoding step's whole cache), which both cores share.
    const int64_t head_floats = std::max<int64_t>(1, total * rows.width);
    ParallelForOrInline(pool, rows.batch * rows.heads, std::max<int64_t>(1, kParallelGrain / head_floats), [&](int64_t t0, int64_t t1) {
      for (int64_t t = t0; t < t1; ++t) {
        const int64_t b = t / rows.heads, h = t % rows.heads;
        float* head = dst + t * total * rows.width;
        if (prior > 0) std::memcpy(head, past->as<const float>() + t * prior * rows.width, size_t(prior * rows.width) * sizeof(float));
        const float* src = now->as<const float>() + rows.Start(b, h);
        for (int64_t s = 0; s < rows.seq; ++s) {
          std::memcpy(head + (prior + s) * rows.width, src + s * rows.Stride(), size_t(rows.width) * sizeof(float));
        }
      }
    });
    *joined_rows = {rows.batch, rows.heads, total, rows.width, false};
    return dst;
  }

  int64_t opset_;
  bool causal_;
  int64_t q_heads_, kv_heads_, qk_mode_;
  float softcap_, scale_;
  bool has_scale_;
  int64_t left_window_, right_window_;  // opset 25's sliding window; -1: that side unbounded
};

}  // namespace

GEBE_CPU_KERNEL("RotaryEmbedding", RotaryEmbeddingKernel);
GEBE_CPU_KERNEL("Attention", AttentionKernel);

}  // namespace gebe::cpu
