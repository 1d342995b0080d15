// The native HTTP server without N-API, under the sanitizers: a threaded fake JS handler, a fake fast path answering from its own threads (as the scheduler does), and clients
// on real sockets: keep-alive traffic on both routes, pipelining, clients that vanish while
// their answer is on the way, a graceful close under load, and an answer after the server is gone;
// then the same server with four loop threads on one port (MultiLoop).
#include <arpa/inet.h>
#include <dirent.h>
#include <csignal>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "http/http_server.h"

using namespace gebe;

#define CHECK(cond)                                                                \
  do {                                                                             \
    if (!(cond)) {                                                                 \
      std::fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
      std::abort();                                                                \
    }                                                                              \
  } while (0)

namespace {

int Connect(int port) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(uint16_t(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  CHECK(connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)) == 0);
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
  return fd;
}

void SendAll(int fd, const std::string& s) {
  size_t off = 0;
  while (off < s.size()) {
    ssize_t n = send(fd, s.data() + off, s.size() - off, MSG_NOSIGNAL);
    if (n <= 0) return;
    off += size_t(n);
  }
}

// Reads one answer framed by Content-Length; "" when the connection ends first.
std::string ReadAnswer(int fd, std::string& buffer, int* status) {
  for (;;) {
    size_t end = buffer.find("\r\n\r\n");
    if (end != std::string::npos) {
      size_t cl = buffer.find("Content-Length: ");
      size_t length = cl != std::string::npos && cl < end ? std::strtoul(buffer.c_str() + cl + 16, nullptr, 10) : 0;
      if (buffer.size() >= end + 4 + length) {
        *status = std::atoi(buffer.c_str() + 9);
        std::string body = buffer.substr(end + 4, length);
        buffer.erase(0, end + 4 + length);
        return body;
      }
    }
    char chunk[65536];
    ssize_t n = recv(fd, chunk, sizeof(chunk), 0);
    if (n <= 0) {
      *status = 0;
      return "";
    }
    buffer.append(chunk, size_t(n));
  }
}

// Reads a streamed answer through its terminating chunk: its head into `head`, its body as sent.
std::string ReadStreamed(int fd, std::string& buffer, std::string* head) {
  for (;;) {
    size_t end = buffer.find("\r\n\r\n");
    size_t last = end == std::string::npos ? end : buffer.find("\r\n0\r\n\r\n", end);
    if (last != std::string::npos) {
      *head = buffer.substr(0, end + 2);
      std::string body = buffer.substr(end + 4, last + 7 - (end + 4));
      buffer.erase(0, last + 7);
      return body;
    }
    char chunk[65536];
    ssize_t n = recv(fd, chunk, sizeof(chunk), 0);
    if (n <= 0) return "";
    buffer.append(chunk, size_t(n));
  }
}

HttpResponse Part(BodyPart part, const std::string& body) {
  HttpResponse r;
  r.part = part;
  if (part == BodyPart::kFirst) r.headers = "Content-Type: text/event-stream\r\n";
  r.owned_body = body;
  return r;
}

// The stand-in for the JS handler: answers every request with "js:<method> <url> <body>" from a
// thread of its own (as the JS thread does); /close answers with close set, /head answers a HEAD;
// /stream answers in parts (one of them empty), /stream-late sends its later parts 50 ms after the first.
class FakeHandler : public RequestHandler {
 public:
  ~FakeHandler() override {
    std::lock_guard<std::mutex> lock(mutex_);
    for (auto& t : threads_) t.join();
  }
  void Handle(std::shared_ptr<HttpRequest> request, Respond respond) override {
    std::lock_guard<std::mutex> lock(mutex_);
    if (request->url == "/stream" || request->url == "/stream-late") {
      threads_.emplace_back([request, respond] {
        respond(Part(BodyPart::kFirst, "part1"));
        if (request->url == "/stream-late") std::this_thread::sleep_for(std::chrono::milliseconds(50));
        respond(Part(BodyPart::kNext, "part2"));
        respond(Part(BodyPart::kNext, ""));
        respond(Part(BodyPart::kLast, "part3"));
      });
      return;
    }
    threads_.emplace_back([request, respond] {
      HttpResponse r;
      r.headers = "Content-Type: text/plain\r\n";
      r.owned_body = "js:" + request->method + " " + request->url + " " +
                     std::string(reinterpret_cast<const char*>(request->body), request->body_size);
      r.close = request->url == "/close";
      respond(std::move(r));
    });
  }

 private:
  std::mutex mutex_;
  std::vector<std::thread> threads_;
};

// Takes POST /v2/models/fast/infer (answers "fast:<body>" from another thread, the body as a
// borrowed piece) and /v2/models/slow/infer (answers after 30 ms); declines the rest.
class FakeFastPath : public FastPath {
 public:
  ~FakeFastPath() override {
    for (auto& t : threads_) t.join();
  }
  bool TryHandle(HttpRequest& request, Respond respond) override {
    bool slow = request.url == "/v2/models/slow/infer";
    if (request.url == "/v2/models/big/infer") {
      // Answers with more bytes than a socket takes at once (the body, repeated to 16 MiB).
      auto big = std::make_shared<std::string>();
      while (big->size() < (16u << 20)) big->append(reinterpret_cast<const char*>(request.body), request.body_size);
      std::lock_guard<std::mutex> lock(mutex_);
      threads_.emplace_back([respond, big] {
        HttpResponse r;
        r.pieces.push_back({reinterpret_cast<const uint8_t*>(big->data()), big->size()});
        r.hold = big;
        respond(std::move(r));
      });
      return true;
    }
    if (request.url != "/v2/models/fast/infer" && !slow) return false;
    if (const std::string* h = request.Header("inference-header-content-length")) {
      CHECK(request.body_size >= std::stoul(*h));
      CHECK((reinterpret_cast<uintptr_t>(request.body) + std::stoul(*h)) % 64 == 0);
    }
    auto body = request.body_owner;
    const uint8_t* data = request.body;
    size_t size = request.body_size;
    std::lock_guard<std::mutex> lock(mutex_);
    taken_++;
    HttpRequest* kept = &request;
    threads_.emplace_back([this, respond, body, data, size, slow, kept] {
      if (slow) std::this_thread::sleep_for(std::chrono::milliseconds(30));
      // The request stays valid until respond is called, even when its client is gone by now.
      CHECK(kept->url == (slow ? "/v2/models/slow/infer" : "/v2/models/fast/infer"));
      HttpResponse r;
      r.headers = "Content-Type: text/plain\r\n";
      r.owned_body = "fast:";
      r.pieces.push_back({data, size});
      r.hold = body;
      respond(std::move(r));
      if (slow) {
        std::lock_guard<std::mutex> lock(mutex_);
        late_ = respond;
      }
    });
    return true;
  }
  void Publish(const std::string&, std::vector<PublishedVersion>, const std::string&) override {}
  std::vector<FailureCount> TakeFailures() override { return {}; }
  void EnableLog(bool) override {}
  TakenLog TakeLog() override { return {}; }
  Respond late() {
    std::lock_guard<std::mutex> lock(mutex_);
    return late_;
  }
  int taken() {
    std::lock_guard<std::mutex> lock(mutex_);
    return taken_;
  }

 private:
  std::mutex mutex_;
  std::vector<std::thread> threads_;
  Respond late_;
  int taken_ = 0;
};

std::string Post(const std::string& url, const std::string& body, const std::string& extra = "") {
  return "POST " + url + " HTTP/1.1\r\nHost: t\r\n" + extra + "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
}

// Threads of this process named `name` (/proc/self/task/*/comm).
int ThreadsNamed(const std::string& name) {
  int count = 0;
  DIR* tasks = opendir("/proc/self/task");
  CHECK(tasks != nullptr);
  while (dirent* task = readdir(tasks)) {
    if (task->d_name[0] == '.') continue;
    std::ifstream comm(std::string("/proc/self/task/") + task->d_name + "/comm");
    std::string line;
    if (std::getline(comm, line) && line == name) count++;
  }
  closedir(tasks);
  return count;
}

// The loop that serves connection `fd`: the one whose accepted count a request on it raises (no
// other traffic meanwhile).
size_t LoopOf(HttpServer& server, int fd) {
  std::vector<uint64_t> before = server.accepted_by_loop();
  SendAll(fd, "GET /which-loop HTTP/1.1\r\nHost: t\r\n\r\n");
  std::string buffer;
  int status = 0;
  CHECK(ReadAnswer(fd, buffer, &status) == "js:GET /which-loop " && status == 200);
  std::vector<uint64_t> after = server.accepted_by_loop();
  for (size_t i = 0; i < after.size(); ++i) {
    if (after[i] != before[i]) return i;
  }
  CHECK(false);
  return 0;
}

// Several loop threads on one port (--http-thread-count 4): traffic on both routes from many
// keep-alive connections, spread by the kernel over the loops; the connection limit and the body
// budget hold across loops; a graceful close answers what is in flight on every loop.
void MultiLoop(const HttpServerOptions& base, const std::shared_ptr<FakeFastPath>& fast, const std::shared_ptr<FakeHandler>& js) {
  HttpServerOptions options = base;
  options.threads = 4;
  {
    HttpServer server(options, fast, js);
    const int port = server.Listen();
    // Each loop names its thread as it starts.
    for (int spins = 0; ThreadsNamed("gebe-http") < 4 && spins < 5000; ++spins) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    CHECK(ThreadsNamed("gebe-http") == 4);
    std::vector<std::thread> clients;
    for (int c = 0; c < 16; ++c) {
      clients.emplace_back([port, c] {
        int fd = Connect(port);
        std::string buffer;
        for (int i = 0; i < 30; ++i) {
          std::string payload = "multi-c" + std::to_string(c) + "i" + std::to_string(i);
          bool use_fast = i % 2 == 0;
          SendAll(fd, Post(use_fast ? "/v2/models/fast/infer" : "/v2/models/m/infer", payload));
          int status = 0;
          std::string body = ReadAnswer(fd, buffer, &status);
          CHECK(status == 200);
          CHECK(body == (use_fast ? "fast:" + payload : "js:POST /v2/models/m/infer " + payload));
        }
        close(fd);
      });
    }
    for (auto& t : clients) t.join();
    std::vector<uint64_t> by_loop = server.accepted_by_loop();
    CHECK(by_loop.size() == 4);
    int used = 0;
    for (uint64_t n : by_loop) used += n > 0;
    CHECK(used >= 2);
    CHECK(server.accepted() == 16 * 30);

    // Graceful close with slow requests in flight on several loops: each is answered, then closed.
    std::vector<std::thread> inflight;
    std::atomic<int> ok{0};
    const uint64_t before = server.accepted();
    for (int i = 0; i < 16; ++i) {
      inflight.emplace_back([port, &ok] {
        int fd = Connect(port);
        std::string buffer;
        int status = 0;
        SendAll(fd, Post("/v2/models/fast/infer", "warm"));
        CHECK(ReadAnswer(fd, buffer, &status) == "fast:warm");
        SendAll(fd, Post("/v2/models/slow/infer", "drain"));
        if (ReadAnswer(fd, buffer, &status) == "fast:drain" && status == 200) ok++;
        ReadAnswer(fd, buffer, &status);
        CHECK(status == 0);
        close(fd);
      });
    }
    while (server.accepted() - before < 32) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    server.BeginClose(5000);
    server.Join();
    for (auto& t : inflight) t.join();
    CHECK(ok == 16);
    CHECK(server.accepted() == server.answered());
    CHECK(ThreadsNamed("gebe-http") == 0);
  }
  // One more connection than the limit is refused whichever loop it lands on.
  {
    HttpServerOptions limited = options;
    limited.max_connections = 2;
    limited.full_message = "full";
    HttpServer server(limited, fast, js);
    const int port = server.Listen();
    int a = Connect(port), b = Connect(port);
    LoopOf(server, a);  // both are open on their loops before the others come
    LoopOf(server, b);
    for (int i = 0; i < 8; ++i) {
      int extra = Connect(port);
      std::string buffer;
      int status = 0;
      CHECK(ReadAnswer(extra, buffer, &status) == "{\"error\":\"full\"}" && status == 503);
      close(extra);
    }
    close(a);
    close(b);
    server.BeginClose(1000);
    server.Join();
  }
  // The body budget counts the bodies of every loop: part of one body held on one loop leaves too
  // little for a body on another.
  {
    HttpServerOptions tight = options;
    tight.max_inflight_bytes = 8192;
    tight.busy_message = "busy";
    HttpServer server(tight, fast, js);
    const int port = server.Listen();
    int a = Connect(port);
    const size_t a_loop = LoopOf(server, a);
    int b = -1;
    for (int tries = 0; tries < 32 && b < 0; ++tries) {
      int fd = Connect(port);
      if (LoopOf(server, fd) != a_loop) b = fd;
      else close(fd);
    }
    CHECK(b >= 0);
    SendAll(a, "POST /v2/models/m/infer HTTP/1.1\r\nHost: t\r\nContent-Length: 6000\r\n\r\n" + std::string(3000, 'a'));
    for (int spins = 0; server.body_bytes() < 6000 && spins < 2000; ++spins) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    CHECK(server.body_bytes() >= 6000);
    SendAll(b, Post("/v2/models/m/infer", std::string(4000, 'b')));
    std::string buffer;
    int status = 0;
    CHECK(ReadAnswer(b, buffer, &status) == "{\"error\":\"busy\"}" && status == 503);
    SendAll(a, std::string(3000, 'a'));
    buffer.clear();
    CHECK(ReadAnswer(a, buffer, &status) == "js:POST /v2/models/m/infer " + std::string(6000, 'a') && status == 200);
    close(a);
    close(b);
    server.BeginClose(1000);
    server.Join();
  }
}

}  // namespace

int main() {
  // As in node, which the server runs in: a write to a socket the client closed fails with EPIPE.
  std::signal(SIGPIPE, SIG_IGN);
  auto js = std::make_shared<FakeHandler>();
  auto fast = std::make_shared<FakeFastPath>();
  Respond late;
  {
    HttpServerOptions options;
    options.max_request_bytes = 1 << 20;
    // serve passes this wording from src/core/server/limits.ts; the server only carries it.
    options.too_large_message = "request body exceeds the limit of 1048576 bytes (raise it with --http-max-body)";
    options.headers_timeout_ms = 2000;
    // As serve runs it: the loop busy-polls after each request and answer (and stops for the drain).
    options.busy_poll_us = 200;
    HttpServer server(options, fast, js);
    int port = server.Listen();

    // Keep-alive traffic on both routes from several clients at once.
    std::vector<std::thread> clients;
    for (int c = 0; c < 4; ++c) {
      clients.emplace_back([port, c] {
        int fd = Connect(port);
        std::string buffer;
        for (int i = 0; i < 200; ++i) {
          std::string payload = "payload-c" + std::to_string(c) + "i" + std::to_string(i);
          bool use_fast = i % 2 == 0;
          SendAll(fd, Post(use_fast ? "/v2/models/fast/infer" : "/v2/models/m/infer", payload,
                           "Inference-Header-Content-Length: " + std::to_string(i % 7) + "\r\n"));
          int status = 0;
          std::string body = ReadAnswer(fd, buffer, &status);
          CHECK(status == 200);
          CHECK(body == (use_fast ? "fast:" + payload : "js:POST /v2/models/m/infer " + payload));
        }
        close(fd);
      });
    }
    for (auto& t : clients) t.join();

    // An answer larger than the socket takes at once (a small receive window): written in parts,
    // in order, and the next pipelined request on the connection follows.
    {
      int fd = socket(AF_INET, SOCK_STREAM, 0);
      int small = 16384;  // a small receive window, set before connecting
      setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &small, sizeof(small));
      sockaddr_in a{};
      a.sin_family = AF_INET;
      a.sin_port = htons(uint16_t(port));
      a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
      CHECK(connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)) == 0);
      std::string buffer;
      std::string seed;
      for (int k = 0; k < 4093; ++k) seed += char('a' + k % 26);
      SendAll(fd, Post("/v2/models/big/infer", seed) + Post("/v2/models/fast/infer", "after"));
      std::this_thread::sleep_for(std::chrono::milliseconds(50));  // the socket fills before the client reads
      int status = 0;
      std::string body = ReadAnswer(fd, buffer, &status);
      CHECK(status == 200 && body.size() >= (16u << 20));
      for (size_t k = 0; k < body.size(); k += 4093) CHECK(body.compare(k, std::min<size_t>(4093, body.size() - k), seed, 0, std::min<size_t>(4093, body.size() - k)) == 0);
      CHECK(ReadAnswer(fd, buffer, &status) == "fast:after" && status == 200);
      close(fd);
    }

    // Pipelined: three requests in one write, answered in order.
    {
      int fd = Connect(port);
      SendAll(fd, Post("/v2/models/fast/infer", "one") + "GET /v2 HTTP/1.1\r\nHost: t\r\n\r\n" + Post("/v2/models/fast/infer", "three"));
      shutdown(fd, SHUT_WR);  // a half-close: all three are still answered, then the server closes
      std::string buffer;
      int status = 0;
      CHECK(ReadAnswer(fd, buffer, &status) == "fast:one" && status == 200);
      CHECK(ReadAnswer(fd, buffer, &status) == "js:GET /v2 " && status == 200);
      CHECK(ReadAnswer(fd, buffer, &status) == "fast:three" && status == 200);
      ReadAnswer(fd, buffer, &status);
      CHECK(status == 0);
      close(fd);
    }

    // A streamed answer: one chunk a non-empty part, the terminating chunk, then the connection
    // keeps serving (keep-alive); on HTTP/1.0 the body has no chunks and ends with the connection.
    {
      int fd = Connect(port);
      SendAll(fd, "GET /stream HTTP/1.1\r\nHost: t\r\n\r\n" + Post("/v2/models/fast/infer", "next"));
      std::string buffer;
      std::string head;
      CHECK(ReadStreamed(fd, buffer, &head) == "5\r\npart1\r\n5\r\npart2\r\n5\r\npart3\r\n0\r\n\r\n");
      CHECK(head.rfind("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n", 0) == 0);
      CHECK(head.find("Connection: keep-alive\r\n") != std::string::npos && head.find("Content-Length") == std::string::npos);
      int status = 0;
      CHECK(ReadAnswer(fd, buffer, &status) == "fast:next" && status == 200);
      close(fd);
      fd = Connect(port);
      SendAll(fd, "GET /stream HTTP/1.0\r\n\r\n");
      std::string all;
      char chunk[4096];
      for (ssize_t n; (n = recv(fd, chunk, sizeof(chunk), 0)) > 0;) all.append(chunk, size_t(n));
      CHECK(all.find("Connection: close\r\n") != std::string::npos && all.find("Transfer-Encoding") == std::string::npos);
      CHECK(all.substr(all.find("\r\n\r\n") + 4) == "part1part2part3");
      close(fd);
    }

    // A client that goes away in the middle of a streamed answer: the later parts are dropped.
    {
      int fd = Connect(port);
      SendAll(fd, "GET /stream-late HTTP/1.1\r\nHost: t\r\n\r\n");
      char chunk[4096];
      CHECK(recv(fd, chunk, sizeof(chunk), 0) > 0);
      close(fd);
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      int again = Connect(port);
      std::string buffer;
      int status = 0;
      SendAll(again, Post("/v2/models/fast/infer", "still"));
      CHECK(ReadAnswer(again, buffer, &status) == "fast:still" && status == 200);
      close(again);
    }

    // Many small pipelined requests in one burst (more than the server buffers while answering).
    {
      int fd = Connect(port);
      std::string burst;
      const int kBurst = 3000;
      for (int i = 0; i < kBurst; ++i) burst += i % 3 == 2 ? "GET /p" + std::to_string(i) + " HTTP/1.1\r\nHost: t\r\n\r\n" : Post("/v2/models/fast/infer", std::to_string(i));
      std::thread writer([fd, &burst] { SendAll(fd, burst); });
      std::string buffer;
      int status = 0;
      for (int i = 0; i < kBurst; ++i) {
        std::string expected = i % 3 == 2 ? "js:GET /p" + std::to_string(i) + " " : "fast:" + std::to_string(i);
        CHECK(ReadAnswer(fd, buffer, &status) == expected && status == 200);
      }
      writer.join();
      close(fd);
    }

    // Memory follows bytes that arrive: 20 connections each declaring the 1 MiB limit and sending
    // 10 bytes hold a first buffer each (64 KiB at most), not 20 MiB.
    {
      std::vector<int> fds;
      for (int i = 0; i < 20; ++i) {
        int fd = Connect(port);
        SendAll(fd, "POST /v2/models/m/infer HTTP/1.1\r\nHost: t\r\nContent-Length: 1048576\r\n\r\n0123456789");
        fds.push_back(fd);
      }
      for (int spins = 0; server.body_bytes() < 20 * 10 && spins < 2000; ++spins) std::this_thread::sleep_for(std::chrono::milliseconds(1));
      uint64_t held = server.body_bytes();
      if (held > 20 * (64 * 1024 + 256)) std::fprintf(stderr, "body bytes held: %llu\n", static_cast<unsigned long long>(held));
      CHECK(held >= 20 * 10 && held <= 20 * (64 * 1024 + 256));
      for (int fd : fds) close(fd);
      for (int spins = 0; server.body_bytes() != 0 && spins < 2000; ++spins) std::this_thread::sleep_for(std::chrono::milliseconds(1));
      CHECK(server.body_bytes() == 0);
    }

    // A chunk size past the body limit is refused when announced, not after its bytes.
    {
      int fd = Connect(port);
      SendAll(fd, "POST /v2/models/m/infer HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\nffffffffffffffff\r\nab");
      std::string buffer;
      int status = 0;
      std::string body = ReadAnswer(fd, buffer, &status);
      CHECK(status == 413 && body.find("exceeds the limit of 1048576 bytes") != std::string::npos);
      close(fd);
    }

    // An answer with close set ends the connection after it; so does a client's Connection: close.
    // A HEAD gets the head of the answer (its Content-Length) without the body.
    {
      int fd = Connect(port);
      std::string buffer;
      int status = 0;
      SendAll(fd, Post("/close", "a"));
      CHECK(ReadAnswer(fd, buffer, &status) == "js:POST /close a" && status == 200);
      ReadAnswer(fd, buffer, &status);
      CHECK(status == 0);
      close(fd);
      fd = Connect(port);
      buffer.clear();
      SendAll(fd, "HEAD /head HTTP/1.1\r\nHost: t\r\n\r\n" + Post("/last", "d", "Connection: close\r\n"));
      char head[4096];
      std::string got;
      for (ssize_t n; got.find("js:POST /last d") == std::string::npos && (n = recv(fd, head, sizeof(head), 0)) > 0;) got.append(head, size_t(n));
      size_t first_end = got.find("\r\n\r\n");
      CHECK(first_end != std::string::npos && got.compare(0, 15, "HTTP/1.1 200 OK") == 0);
      CHECK(got.find("Content-Length: 14\r\n") < first_end);  // "js:HEAD /head "
      CHECK(got.compare(first_end + 4, 15, "HTTP/1.1 200 OK") == 0);  // no body after the HEAD answer
      CHECK(got.find("Connection: close", first_end) != std::string::npos);
      buffer = got.substr(got.find("js:POST /last d") + 15);
      ReadAnswer(fd, buffer, &status);
      CHECK(status == 0);  // closed after the answer
      close(fd);
    }

    // Answers that come 30 ms later, after the loop's busy poll has ended and it sleeps: posting
    // one must still wake the loop (a loop that polls takes answers without a wake-up).
    {
      int fd = Connect(port);
      std::string buffer;
      for (int i = 0; i < 3; ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(5));  // the poll window (200 µs) passes
        SendAll(fd, Post("/v2/models/slow/infer", "later" + std::to_string(i)));
        int status = 0;
        CHECK(ReadAnswer(fd, buffer, &status) == "fast:later" + std::to_string(i) && status == 200);
      }
      close(fd);
    }

    // Chunked body, joined before the fast path sees it.
    {
      int fd = Connect(port);
      SendAll(fd, "POST /v2/models/fast/infer HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n");
      std::string buffer;
      int status = 0;
      CHECK(ReadAnswer(fd, buffer, &status) == "fast:abcde" && status == 200);
      close(fd);
    }

    // Clients that vanish while their answer is on the way (fast path and JS handler).
    for (int i = 0; i < 20; ++i) {
      int fd = Connect(port);
      SendAll(fd, Post(i % 2 ? "/v2/models/slow/infer" : "/v2/models/m/infer", "gone"));
      linger l{1, 0};  // close with a reset
      setsockopt(fd, SOL_SOCKET, SO_LINGER, &l, sizeof(l));
      close(fd);
    }

    // Every request of the vanished clients counts as answered (dropped) in the end. They settle
    // first, so that below only the draining clients' requests are counted.
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    while (server.accepted() != server.answered()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    uint64_t before = server.accepted();

    // Graceful close with slow requests in flight: each is answered, with Connection: close.
    std::vector<std::thread> inflight;
    std::atomic<int> ok{0};
    for (int i = 0; i < 4; ++i) {
      inflight.emplace_back([port, &ok] {
        int fd = Connect(port);
        std::string buffer;
        int status = 0;
        SendAll(fd, Post("/v2/models/fast/infer", "warm"));  // the connection is in use first
        CHECK(ReadAnswer(fd, buffer, &status) == "fast:warm");
        SendAll(fd, Post("/v2/models/slow/infer", "drain"));
        std::string got = ReadAnswer(fd, buffer, &status);
        if (got == "fast:drain" && status == 200 && buffer.empty()) ok++;
        else std::fprintf(stderr, "drain answer: %d '%s'\n", status, got.c_str());
        ReadAnswer(fd, buffer, &status);
        CHECK(status == 0);  // and the connection closes after it
        close(fd);
      });
    }
    while (server.accepted() - before < 8) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    // An idle keep-alive connection whose request is sent just before the close, and a request
    // whose body is still arriving when it begins: both are answered (with Connection: close).
    int idle = Connect(port);
    std::string idle_buffer;
    int idle_status = 0;
    SendAll(idle, Post("/v2/models/fast/infer", "before"));
    CHECK(ReadAnswer(idle, idle_buffer, &idle_status) == "fast:before");
    int partial = Connect(port);
    SendAll(partial, "POST /v2/models/fast/infer HTTP/1.1\r\nHost: t\r\nContent-Length: 8\r\n\r\nhalf");
    std::this_thread::sleep_for(std::chrono::milliseconds(50));  // (the server has read "half")
    SendAll(idle, Post("/v2/models/fast/infer", "at-close"));
    server.BeginClose(5000);
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    SendAll(partial, "-end");
    std::string partial_buffer;
    for (int fd : {idle, partial}) {
      std::string& buffer = fd == idle ? idle_buffer : partial_buffer;
      int status = 0;
      std::string got = ReadAnswer(fd, buffer, &status);
      if (status != 200) std::fprintf(stderr, "drain: %d '%s'\n", status, got.c_str());
      CHECK(status == 200 && got == (fd == idle ? "fast:at-close" : "fast:half-end"));
      ReadAnswer(fd, buffer, &status);
      CHECK(status == 0);
      close(fd);
    }
    server.Join();
    for (auto& t : inflight) t.join();
    if (ok != 4) std::fprintf(stderr, "answered during the close: %d of 4\n", ok.load());
    CHECK(ok == 4);
    CHECK(server.accepted() == server.answered());
    // Over the connection limit: a 503 with the wording given, then the close.
    {
      HttpServerOptions limited = options;
      limited.max_connections = 2;
      limited.full_message = "full";
      HttpServer small(limited, fast, js);
      int small_port = small.Listen();
      int a = Connect(small_port), b = Connect(small_port), c = Connect(small_port);
      std::string buffer;
      int status = 0;
      CHECK(ReadAnswer(c, buffer, &status) == "{\"error\":\"full\"}" && status == 503);
      SendAll(a, Post("/v2/models/fast/infer", "a"));
      CHECK(ReadAnswer(a, buffer, &status) == "fast:a" && status == 200);
      // The in-flight body budget: a body that would pass it is answered 503.
      HttpServerOptions tight = options;
      tight.max_inflight_bytes = 4096;
      tight.busy_message = "busy";
      HttpServer budget(tight, fast, js);
      int budget_port = budget.Listen();
      int d = Connect(budget_port);
      SendAll(d, Post("/v2/models/m/infer", std::string(8192, 'x')));
      buffer.clear();
      CHECK(ReadAnswer(d, buffer, &status) == "{\"error\":\"busy\"}" && status == 503);
      CHECK(budget.body_bytes() == 0 || budget.body_bytes() <= 4096);
      for (int fd : {a, b, c, d}) close(fd);
      small.BeginClose(1000);
      budget.BeginClose(1000);
      small.Join();
      budget.Join();
    }
    MultiLoop(options, fast, js);
    std::printf("http server test: %llu requests accepted and answered, %d taken by the fast path\n",
                static_cast<unsigned long long>(server.accepted()), fast->taken());
    late = fast->late();
  }
  // An answer after the server is gone is dropped, not a crash.
  CHECK(late != nullptr);
  late(HttpResponse{});
  std::printf("ok\n");
  return 0;
}
