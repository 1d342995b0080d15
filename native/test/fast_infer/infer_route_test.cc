// The infer route's URL and header checks: taken exactly when the JS router and codec would read
// them plainly, declined otherwise.
#include <string>

#include "check.h"
#include "http/infer_route.h"

using namespace gebe;

namespace {

bool Url(std::string_view url, InferUrl* out = nullptr) {  // views into `url`, a literal
  InferUrl tmp;
  return MatchInferUrl(url, out ? out : &tmp);
}


}  // namespace

TEST(url_matches_infer_paths_only) {
  InferUrl u;
  CHECK(Url("/v2/models/mnist/infer", &u));
  CHECK_EQ(std::string(u.model), std::string("mnist"));
  CHECK(!u.versioned);
  CHECK(Url("/v2/models/m.x-1_2/versions/12/infer", &u));
  CHECK_EQ(std::string(u.model), std::string("m.x-1_2"));
  CHECK_EQ(std::string(u.version), std::string("12"));
  CHECK(u.versioned);
  CHECK(Url("/v2/models/versions/infer", &u));  // a model named "versions"
  CHECK_EQ(std::string(u.model), std::string("versions"));
  for (const char* url : {"/v2/models/mnist/infer/", "/v2/models/mnist/infer?x", "/v2/models/mnist/infer#f", "/v2/models/mn%69st/infer",
                          "/v2/models//infer", "/v2/models/mnist//infer", "/v2/models/mnist/versions/1a/infer",
                          "/v2/models/mnist/versions//infer", "/v2/models/mnist/versions/infer", "/v2/models/mnist/versions/1/infer/x",
                          "/v2/models/mnist/ready", "/v2/models/mnist", "/v2/models/", "/v2/models", "/v2//models/mnist/infer",
                          "/V2/models/mnist/infer", "v2/models/mnist/infer", "http://h/v2/models/mnist/infer", "",
                          "/v2/models/mnist/versions/1/x/infer", "/v2/models/a/b/infer", "/v2/models/mnist/inferx",
                          "/v2/models/caf\xC3\xA9/infer", "/v2/models/a b/infer", "/v2/models/a\tb/infer", "/v2/models/a\x7f/infer"}) {
    CHECK_EQ_CTX(Url(url), false, url);
  }
}

TEST(header_length_rules) {
  size_t n = 0;
  bool binary = false;
  CHECK(InferHeaderLength({{"content-type", "x"}, {"inference-header-content-length", "120"}}, &binary, &n));
  CHECK(binary);
  CHECK_EQ(n, size_t(120));
  CHECK(InferHeaderLength({{"inference-header-content-length", "0"}}, &binary, &n));
  CHECK_EQ(n, size_t(0));
  CHECK(InferHeaderLength({{"content-type", "application/json"}}, &binary, &n));  // JSON only
  CHECK(!binary);
  using Headers = std::vector<std::pair<std::string, std::string>>;
  for (const Headers& headers : {
           Headers{{"content-encoding", "gzip"}},
           Headers{{"inference-header-content-length", ""}},
           Headers{{"inference-header-content-length", " 12"}},
           Headers{{"inference-header-content-length", "12 "}},
           Headers{{"inference-header-content-length", "-1"}},
           Headers{{"inference-header-content-length", "1e2"}},
           Headers{{"inference-header-content-length", "1234567890123456"}},
           Headers{{"inference-header-content-length", "1"}, {"inference-header-content-length", "1"}},
           Headers{{"inference-header-content-length", "1"}, {"content-encoding", "identity"}},
           Headers{{"content-encoding", "gzip"}, {"inference-header-content-length", "1"}},
       }) {
    CHECK(!InferHeaderLength(headers, &binary, &n));
  }
}
