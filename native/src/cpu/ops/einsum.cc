// Einsum: any equation of explicit or implicit form ("ij,jk->ik", "bhid,bhjd->bhij", "ii->i",
// "...ij,...jk"). Two FP32 operands that make a batched matrix product (what exporters write for
// attention: MaxViT's "BGHID,BGHJD->BGHIJ") run on the SGEMM; anything else iterates the output
// indices and, per output element, the summed indices.
#include <algorithm>
#include <cstring>
#include <map>

#include "cpu/gemm/sgemm.h"
#include "cpu/ops/op_util.h"
#include "cpu/ops/permute.h"

namespace gebe::cpu {

namespace {

class EinsumKernel : public Kernel {
 public:
  EinsumKernel(const Node& node, int64_t) : Kernel(node) {
    std::string eq;
    for (char c : node.get_string("equation", "")) if (c != ' ') eq += c;
    size_t arrow = eq.find("->");
    std::string lhs = arrow == std::string::npos ? eq : eq.substr(0, arrow);
    size_t start = 0;
    while (true) {
      size_t comma = lhs.find(',', start);
      terms_.push_back(lhs.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
    explicit_ = arrow != std::string::npos;
    if (explicit_) out_term_ = eq.substr(arrow + 2);
    for (const std::string& t : terms_) CheckTerm(t);
    if (explicit_) CheckTerm(out_term_);
    if (terms_.empty() || (terms_.size() == 1 && terms_[0].empty() && !explicit_)) Fail("equation '" + eq + "' has no operands");
  }

  bool Infer(const std::vector<const TensorRef*>& in, std::vector<TensorRef>& out) override {
    if (in.size() != terms_.size()) Fail("equation has " + std::to_string(terms_.size()) + " operands but the node has " + std::to_string(in.size()) + " inputs");
    for (size_t i = 0; i < in.size(); ++i) {
      if (!in[i]) Fail("missing input " + std::to_string(i));
      ExpectType(*in[i], "Inputs", {DataType::kFloat32, DataType::kFloat64, DataType::kInt64, DataType::kInt32});
      if (in[i]->dtype != in[0]->dtype) Fail("inputs must have the same type");
    }
    Layout l = Resolve(in);
    Shape s;
    for (char c : l.out) s.push_back(l.extent.at(c));
    out[0] = {in[0]->dtype, s, nullptr};
    return true;
  }

  void Run(const std::vector<const TensorRef*>& in, std::vector<TensorRef>& out, const RunContext& ctx) override {
    Layout l = Resolve(in);
    if (in.size() == 2 && out[0].dtype == DataType::kFloat32 && RunAsProduct(l, in, out[0], ctx)) return;
    // Every distinct index: output ones first, then summed ones.
    std::vector<char> all(l.out.begin(), l.out.end());
    for (const std::string& t : l.terms)
      for (char c : t)
        if (std::find(all.begin(), all.end(), c) == all.end()) all.push_back(c);
    size_t n_out = l.out.size();
    std::vector<int64_t> extent;
    for (char c : all) extent.push_back(l.extent.at(c));
    // Per operand, the stride each index advances it by (0 when absent; summed for repeats: diagonals).
    std::vector<std::vector<int64_t>> strides(in.size(), std::vector<int64_t>(all.size(), 0));
    for (size_t i = 0; i < in.size(); ++i) {
      auto st = Strides(in[i]->shape);
      for (size_t d = 0; d < l.terms[i].size(); ++d) {
        if (in[i]->shape[d] == 1) continue;  // broadcast (or trivial) dim: the index never moves this operand
        size_t k = size_t(std::find(all.begin(), all.end(), l.terms[i][d]) - all.begin());
        strides[i][k] += st[d];
      }
    }
    int64_t outer = 1, inner = 1;
    for (size_t k = 0; k < all.size(); ++k) (k < n_out ? outer : inner) *= extent[k];
    GEBE_DISPATCH_NUMERIC(out[0].dtype, {
      T* po = out[0].as<T>();
      std::vector<int64_t> idx(all.size());
      for (int64_t o = 0; o < outer; ++o) {
        int64_t rem = o;
        for (size_t k = n_out; k-- > 0;) {
          idx[k] = rem % extent[k];
          rem /= extent[k];
        }
        double acc = 0;
        for (int64_t s = 0; s < inner; ++s) {
          int64_t r2 = s;
          for (size_t k = all.size(); k-- > n_out;) {
            idx[k] = r2 % extent[k];
            r2 /= extent[k];
          }
          double prod = 1;
          for (size_t i = 0; i < in.size(); ++i) {
            int64_t off = 0;
            for (size_t k = 0; k < all.size(); ++k) off += idx[k] * strides[i][k];
            prod *= double(in[i]->as<const T>()[off]);
          }
          acc += prod;
        }
        po[o] = FromReal<T>(acc);
      }
    });
  }

 private:
  struct Layout;

  // Two operands whose every index is either in both (a batch index when the output keeps it, a
  // summed one when not) or in one and the output (a row index of the first, a column index of
  // the second) are `batch` GEMMs of rows × summed by summed × columns. Each operand is read in
  // place when its dims already come in that order or its transpose, and permuted into scratch
  // otherwise; the output likewise. False (nothing written) for other equations: diagonals, an
  // index summed within one operand, broadcasting between the operands.
  bool RunAsProduct(const Layout& l, const std::vector<const TensorRef*>& in, TensorRef& y, const RunContext& ctx) const {
    const std::string &ta = l.terms[0], &tb = l.terms[1];
    auto has = [](const std::string& t, char c) { return t.find(c) != std::string::npos; };
    auto repeats = [](const std::string& t) {
      for (size_t i = 0; i < t.size(); ++i)
        if (t.find(t[i], i + 1) != std::string::npos) return true;
      return false;
    };
    if (repeats(ta) || repeats(tb) || repeats(l.out)) return false;
    std::string batch, rows, cols, summed;
    for (char c : l.out) (has(ta, c) && has(tb, c) ? batch : has(ta, c) ? rows : cols) += c;
    for (char c : ta) {
      if (has(l.out, c)) continue;
      if (!has(tb, c)) return false;
      summed += c;
    }
    for (char c : tb)
      if (!has(l.out, c) && !has(ta, c)) return false;
    for (char c : batch + summed)
      if (in[0]->shape[ta.find(c)] != in[1]->shape[tb.find(c)]) return false;
    auto size = [&](const std::string& letters) {
      int64_t n = 1;
      for (char c : letters) n *= l.extent.at(c);
      return n;
    };
    const int64_t nb = size(batch), m = size(rows), n = size(cols), k = size(summed);
    float* py = y.as<float>();
    if (k == 0) {
      std::fill(py, py + nb * m * n, 0.f);
      return true;
    }
    // Whether `term` holds its dims of more than one element in the order `want` names them.
    auto in_order = [&](const std::string& term, const std::string& want) {
      std::string a, b;
      for (char c : term) if (l.extent.at(c) != 1) a += c;
      for (char c : want) if (l.extent.at(c) != 1) b += c;
      return a == b;
    };
    auto perm_to = [](const std::string& from, const std::string& to) {
      std::vector<int64_t> perm;
      for (char c : to) perm.push_back(int64_t(from.find(c)));
      return perm;
    };
    const bool permute_a = !in_order(ta, batch + rows + summed) && !in_order(ta, batch + summed + rows);
    const bool permute_b = !in_order(tb, batch + summed + cols) && !in_order(tb, batch + cols + summed);
    const bool permute_y = !in_order(l.out, batch + rows + cols);
    float* scratch = ctx.scratch->Floats(size_t((permute_a ? nb * m * k : 0) + (permute_b ? nb * k * n : 0) +
                                                (permute_y ? nb * m * n : 0)));
    // Operand x (dims named by term) as the GEMM reads it: in the order `normal` in scratch when
    // it must be permuted, else in place, transposed when its dims come in the other order.
    auto lay_out = [&](const TensorRef& x, const std::string& term, const std::string& normal, bool permute, bool* trans) {
      const float* p = x.as<const float>();
      *trans = false;
      if (!permute) {
        *trans = !in_order(term, normal);
        return p;
      }
      Permute(p, sizeof(float), x.shape, perm_to(term, normal), scratch, ctx.pool);
      p = scratch;
      scratch += x.count();
      return p;
    };
    bool trans_a, trans_b;
    const float* pa = lay_out(*in[0], ta, batch + rows + summed, permute_a, &trans_a);
    const float* pb = lay_out(*in[1], tb, batch + summed + cols, permute_b, &trans_b);
    float* pc = permute_y ? scratch : py;
    ForEachProduct(nb, m * n * k, ctx.pool, [&](int64_t t, ThreadPool* pool) {
      Sgemm(trans_a, trans_b, m, n, k, 1.f, pa + t * m * k, trans_a ? m : k, pb + t * k * n, trans_b ? k : n, 0.f,
            pc + t * m * n, n, pool);
    });
    if (permute_y) {
      const std::string made = batch + rows + cols;
      Shape shape;
      for (char c : made) shape.push_back(l.extent.at(c));
      Permute(pc, sizeof(float), shape, perm_to(made, l.out), py, ctx.pool);
    }
    return true;
  }

  struct Layout {
    std::vector<std::string> terms;  // with "..." expanded into upper-case letters (ONNX letters are a-z, A-Z)
    std::string out;
    std::map<char, int64_t> extent;
  };

  void CheckTerm(const std::string& t) const {
    bool ellipsis = false;
    for (size_t i = 0; i < t.size(); ++i) {
      char c = t[i];
      if (c == '.') {
        if (t.compare(i, 3, "...") != 0) Fail("'.' must be part of an ellipsis '...'");
        if (ellipsis) Fail("the term '" + t + "' has more than one ellipsis '...'; a term may have one");
        ellipsis = true;
        i += 2;
      } else if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))) {
        Fail(std::string("equation has the character '") + c + "', which is not a letter");
      }
    }
  }

  Layout Resolve(const std::vector<const TensorRef*>& in) const {
    Layout l;
    // Ellipsis dims get digits '0'.. (never letters), right-aligned across operands.
    size_t ellipsis_rank = 0;
    for (size_t i = 0; i < terms_.size(); ++i) {
      size_t letters = 0;
      bool has = false;
      for (size_t k = 0; k < terms_[i].size(); ++k) {
        if (terms_[i][k] == '.') { has = true; k += 2; } else ++letters;
      }
      if (!has && letters != size_t(in[i]->rank())) Fail("operand " + std::to_string(i) + " '" + terms_[i] + "' does not match its rank " + std::to_string(in[i]->rank()));
      if (has) {
        if (size_t(in[i]->rank()) < letters) Fail("operand " + std::to_string(i) + " has fewer dims than its letters");
        ellipsis_rank = std::max(ellipsis_rank, size_t(in[i]->rank()) - letters);
      }
    }
    if (ellipsis_rank > 10) Fail("an ellipsis may stand for at most 10 dims");
    auto expand = [&](const std::string& t, size_t dims) {
      std::string e;
      for (size_t k = 0; k < t.size(); ++k) {
        if (t[k] == '.') {
          for (size_t j = ellipsis_rank - dims; j < ellipsis_rank; ++j) e += char('0' + j);
          k += 2;
        } else {
          e += t[k];
        }
      }
      return e;
    };
    std::map<char, int> count;
    for (size_t i = 0; i < terms_.size(); ++i) {
      size_t letters = 0;
      for (size_t k = 0; k < terms_[i].size(); ++k) {
        if (terms_[i][k] == '.') k += 2; else ++letters;
      }
      std::string e = expand(terms_[i], size_t(in[i]->rank()) - letters);
      for (size_t d = 0; d < e.size(); ++d) {
        int64_t ext = in[i]->shape[d];
        auto it = l.extent.find(e[d]);
        if (it == l.extent.end() || it->second == 1) l.extent[e[d]] = ext;
        else if (ext != 1 && ext != it->second) Fail(std::string("index '") + e[d] + "' has extents " + std::to_string(it->second) + " and " + std::to_string(ext));
        count[e[d]]++;
      }
      l.terms.push_back(e);
    }
    // Broadcast ellipsis dims of extent 1 against the resolved extent: strides for them stay 0.
    if (explicit_) {
      l.out = expand(out_term_, ellipsis_rank);
      for (char c : l.out) if (!l.extent.count(c)) Fail(std::string("output index '") + c + "' appears in no operand");
    } else {
      for (size_t j = 0; j < ellipsis_rank; ++j) l.out += char('0' + j);
      for (const auto& [c, n] : count)
        if (n == 1 && !(c >= '0' && c <= '9')) l.out += c;  // implicit form: indices seen once, alphabetically
    }
    return l;
  }

  std::vector<std::string> terms_;
  std::string out_term_;
  bool explicit_ = false;
};

}  // namespace

GEBE_CPU_KERNEL("Einsum", EinsumKernel);

}  // namespace gebe::cpu
