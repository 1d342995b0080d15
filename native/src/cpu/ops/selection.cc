// Operators whose output size is the number of things they select, computed from the values
// (so Infer runs the selection, and Run runs it again into the allocated outputs):
// NonMaxSuppression (as ONNX Runtime: candidates above score_threshold by descending score,
// ties by index, kept unless their IoU with a kept box exceeds iou_threshold) and Unique
// (flattened or along an axis; sorted, or in order of first occurrence).
#include <algorithm>
#include <cstring>
#include <numeric>

#include "cpu/ops/op_util.h"

namespace gebe::cpu {

namespace {

class NonMaxSuppressionKernel : public Kernel {
 public:
  NonMaxSuppressionKernel(const Node& node, int64_t) : Kernel(node), center_(node.get_int("center_point_box", 0) != 0) {}

  bool Infer(const std::vector<const TensorRef*>& in, std::vector<TensorRef>& out) override {
    for (const TensorRef* t : in) {
      if (t && !Known(*t)) return false;
    }
    out[0] = {DataType::kInt64, {int64_t(Select(in).size() / 3), 3}, nullptr};
    return true;
  }
  void Run(const std::vector<const TensorRef*>& in, std::vector<TensorRef>& out, const RunContext&) override {
    std::vector<int64_t> selected = Select(in);
    if (!selected.empty()) std::memcpy(out[0].data, selected.data(), selected.size() * sizeof(int64_t));
  }

 private:
  // (batch, class, box) triples, flattened.
  std::vector<int64_t> Select(const std::vector<const TensorRef*>& in) const {
    const TensorRef& boxes = Input(in, 0, "boxes");
    const TensorRef& scores = Input(in, 1, "scores");
    ExpectType(boxes, "boxes", {DataType::kFloat32});
    ExpectType(scores, "scores", {DataType::kFloat32});
    if (boxes.rank() != 3 || boxes.shape[2] != 4) Fail("boxes must be [batches, boxes, 4] but is " + ShapeToString(boxes.shape));
    if (scores.rank() != 3 || scores.shape[0] != boxes.shape[0] || scores.shape[2] != boxes.shape[1]) {
      Fail("scores must be [batches, classes, boxes] matching boxes " + ShapeToString(boxes.shape) + " but is " + ShapeToString(scores.shape));
    }
    int64_t max_out = 0;
    float iou = 0;
    bool has_score = false;
    float score_threshold = 0;
    if (in.size() > 2 && in[2] && in[2]->count() > 0) max_out = ReadInts(*in[2])[0];
    if (in.size() > 3 && in[3] && in[3]->count() > 0) {
      ExpectType(*in[3], "iou_threshold", {DataType::kFloat32});
      iou = in[3]->as<const float>()[0];
      if (!(iou >= 0 && iou <= 1)) Fail("iou_threshold must be in [0, 1]");
    }
    if (in.size() > 4 && in[4] && in[4]->count() > 0) {
      ExpectType(*in[4], "score_threshold", {DataType::kFloat32});
      has_score = true;
      score_threshold = in[4]->as<const float>()[0];
    }
    std::vector<int64_t> result;
    if (max_out <= 0) return result;
    int64_t batches = boxes.shape[0], classes = scores.shape[1], n = boxes.shape[1];
    std::vector<int64_t> order, kept;
    for (int64_t b = 0; b < batches; ++b) {
      const float* bx = boxes.as<const float>() + b * n * 4;
      for (int64_t c = 0; c < classes; ++c) {
        const float* sc = scores.as<const float>() + (b * classes + c) * n;
        order.clear();
        for (int64_t i = 0; i < n; ++i) {
          if (!has_score || sc[i] > score_threshold) order.push_back(i);
        }
        std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t z) { return sc[a] > sc[z]; });
        kept.clear();
        for (int64_t i : order) {
          if (int64_t(kept.size()) >= max_out) break;
          bool suppressed = false;
          for (int64_t k : kept) suppressed = suppressed || Overlaps(bx + i * 4, bx + k * 4, iou);
          if (suppressed) continue;
          kept.push_back(i);
          result.insert(result.end(), {b, c, i});
        }
      }
    }
    return result;
  }

  // [x_min, y_min, x_max, y_max] of a box given as [y1, x1, y2, x2] (corners in any order) or
  // [x_center, y_center, width, height].
  void Corners(const float* b, float* r) const {
    if (center_) {
      r[0] = b[0] - b[2] / 2, r[1] = b[1] - b[3] / 2, r[2] = b[0] + b[2] / 2, r[3] = b[1] + b[3] / 2;
    } else {
      r[0] = std::min(b[1], b[3]), r[1] = std::min(b[0], b[2]), r[2] = std::max(b[1], b[3]), r[3] = std::max(b[0], b[2]);
    }
  }
  bool Overlaps(const float* a, const float* b, float threshold) const {
    float p[4], q[4];
    Corners(a, p);
    Corners(b, q);
    float ix0 = std::max(p[0], q[0]), iy0 = std::max(p[1], q[1]), ix1 = std::min(p[2], q[2]), iy1 = std::min(p[3], q[3]);
    if (ix1 <= ix0 || iy1 <= iy0) return false;
    float inter = (ix1 - ix0) * (iy1 - iy0);
    float area_a = (p[2] - p[0]) * (p[3] - p[1]), area_b = (q[2] - q[0]) * (q[3] - q[1]);
    float uni = area_a + area_b - inter;
    if (area_a <= 0 || area_b <= 0 || uni <= 0) return false;
    return inter / uni > threshold;
  }

  bool center_;
};

class UniqueKernel : public Kernel {
 public:
  UniqueKernel(const Node& node, int64_t)
      : Kernel(node), has_axis_(node.has("axis")), axis_(node.get_int("axis", 0)), sorted_(node.get_int("sorted", 1) != 0) {}

  bool Infer(const std::vector<const TensorRef*>& in, std::vector<TensorRef>& out) override {
    const TensorRef& x = Input(in, 0, "X");
    ExpectType(x, "X", {GEBE_NUMERIC_TYPES, DataType::kBool});
    if (!Known(x)) return false;
    Result r = Compute(x);
    Shape y = has_axis_ ? x.shape : Shape{int64_t(r.first.size())};
    if (has_axis_) y[size_t(NormalizeAxis(*this, axis_, x.rank()))] = int64_t(r.first.size());
    out[0] = {x.dtype, y, nullptr};
    int64_t k = int64_t(r.first.size());
    if (out.size() > 1) out[1] = {DataType::kInt64, {k}, nullptr};
    if (out.size() > 2) out[2] = {DataType::kInt64, {int64_t(r.inverse.size())}, nullptr};
    if (out.size() > 3) out[3] = {DataType::kInt64, {k}, nullptr};
    return true;
  }

  void Run(const std::vector<const TensorRef*>& in, std::vector<TensorRef>& out, const RunContext&) override {
    const TensorRef& x = *in[0];
    Result r = Compute(x);
    Geometry g = GeometryOf(x);
    size_t es = ElementSize(x.dtype);
    int64_t k = int64_t(r.first.size());
    auto* dst = out[0].as<uint8_t>();
    const auto* src = x.as<const uint8_t>();
    for (int64_t o = 0; o < g.outer; ++o) {
      for (int64_t u = 0; u < k; ++u) {
        std::memcpy(dst + size_t((o * k + u) * g.inner) * es, src + size_t((o * g.n + r.first[size_t(u)]) * g.inner) * es,
                    size_t(g.inner) * es);
      }
    }
    auto write = [&](size_t i, const std::vector<int64_t>& v) {
      if (out.size() > i && out[i].data && !v.empty()) std::memcpy(out[i].data, v.data(), v.size() * sizeof(int64_t));
    };
    write(1, r.first);
    write(2, r.inverse);
    write(3, r.counts);
  }

 private:
  struct Geometry {
    int64_t outer = 1, n = 1, inner = 1;  // slices: n of them, each outer × inner elements
  };
  struct Result {
    std::vector<int64_t> first, inverse, counts;  // by unique slice: its first index; by slice: its unique
  };

  Geometry GeometryOf(const TensorRef& x) const {
    Geometry g;
    if (!has_axis_) {
      g.n = x.count();
      return g;
    }
    size_t axis = size_t(NormalizeAxis(*this, axis_, x.rank()));
    g.outer = SizeTo(x.shape, axis);
    g.n = x.shape[axis];
    g.inner = SizeFrom(x.shape, axis + 1);
    return g;
  }

  Result Compute(const TensorRef& x) const {
    Geometry g = GeometryOf(x);
    Result r;
    auto run = [&](auto typed) {
      using T = decltype(typed);
      const T* p = x.as<const T>();
      // Slice i, element e (in outer-major order).
      auto at = [&](int64_t i, int64_t e) { return p[((e / g.inner) * g.n + i) * g.inner + e % g.inner]; };
      int64_t len = g.outer * g.inner;
      auto less = [&](int64_t a, int64_t b) {
        for (int64_t e = 0; e < len; ++e) {
          T va = at(a, e), vb = at(b, e);
          if (va != vb) return va < vb;
        }
        return false;
      };
      std::vector<int64_t> order(size_t(g.n));
      std::iota(order.begin(), order.end(), 0);
      std::stable_sort(order.begin(), order.end(), less);
      // Groups of equal slices in sorted order; each group's first member is its first occurrence.
      std::vector<int64_t> group_of(size_t(g.n));
      std::vector<int64_t> group_first, group_count;
      for (size_t i = 0; i < order.size(); ++i) {
        if (i == 0 || less(order[i - 1], order[i])) {
          group_first.push_back(order[i]);
          group_count.push_back(0);
        }
        group_of[size_t(order[i])] = int64_t(group_first.size()) - 1;
        group_count.back()++;
      }
      // Output rank of each group: sorted order, or by first occurrence.
      std::vector<int64_t> rank(group_first.size());
      std::iota(rank.begin(), rank.end(), 0);
      if (!sorted_) {
        std::vector<int64_t> by_first(group_first.size());
        std::iota(by_first.begin(), by_first.end(), 0);
        std::sort(by_first.begin(), by_first.end(), [&](int64_t a, int64_t b) { return group_first[size_t(a)] < group_first[size_t(b)]; });
        for (size_t j = 0; j < by_first.size(); ++j) rank[size_t(by_first[j])] = int64_t(j);
      }
      r.first.assign(group_first.size(), 0);
      r.counts.assign(group_first.size(), 0);
      for (size_t j = 0; j < group_first.size(); ++j) {
        r.first[size_t(rank[j])] = group_first[j];
        r.counts[size_t(rank[j])] = group_count[j];
      }
      for (int64_t i = 0; i < g.n; ++i) r.inverse.push_back(rank[size_t(group_of[size_t(i)])]);
    };
    if (x.dtype == DataType::kBool) {
      run(uint8_t());
    } else {
      GEBE_DISPATCH_NUMERIC(x.dtype, run(T()));
    }
    return r;
  }

  bool has_axis_;
  int64_t axis_;
  bool sorted_;
};

}  // namespace

GEBE_CPU_KERNEL("NonMaxSuppression", NonMaxSuppressionKernel);
GEBE_CPU_KERNEL("Unique", UniqueKernel);

}  // namespace gebe::cpu
