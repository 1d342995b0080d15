// Einsum: any equation of explicit or implicit form ("ij,jk->ik", "bhid,bhjd->bhij", "ii->i",
// "...ij,...jk"), by iterating the output indices and, per output element, the summed indices.
// General rather than fast: the exporters' Einsums are small contractions or batched matmuls.
#include <algorithm>
#include <cstring>
#include <map>

#include "cpu/ops/op_util.h"

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

  void Run(const std::vector<const TensorRef*>& in, std::vector<TensorRef>& out, const RunContext&) override {
    Layout l = Resolve(in);
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
