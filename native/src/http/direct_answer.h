// Writing a fast-path answer straight from the thread that finished it (a scheduler thread),
// instead of waking the loop thread to write it. On these VMs waking a sleeping thread on the
// other core costs tens of µs, and the client waits for it; the loop still hears of every answer
// through the mailbox (for its counters, timers and the next request), but the client no longer
// waits for it to wake.
//
// Only a lone answer is written so (a batch of one, as at concurrency 1): the answers of a bigger
// batch are written by the loop in one wake, which costs fewer context switches than one write each.
//
// The loop arms a connection for one request when nothing else can be written before the answer
// (no write pending, no Connection: close due); the first of the finishing thread's write and
// the loop's own next move (its Deliver, a close, a drain) takes the arm, under one lock, so the
// socket is written by one thread at a time and never after the loop closed it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>

#include "http/fast_path.h"

namespace gebe {

// The head of an answer: status line, Content-Length, Date, Connection, then the response's own
// header lines. One place for the head both writers send.
std::string AnswerHead(const HttpResponse& response, size_t body_length, bool close);
// Body bytes of `response` (the owned part and the pieces).
size_t AnswerBodyLength(const HttpResponse& response);

class DirectAnswer {
 public:
  // Loop thread: request `seq` may be answered on `fd` by whoever finishes it.
  void Arm(uint64_t seq, int fd) {
    std::lock_guard<std::mutex> lock(mu_);
    armed_seq_ = seq;
    fd_ = fd;
  }
  // Loop thread: takes the arm back (before it writes or closes itself).
  void Disarm() {
    std::lock_guard<std::mutex> lock(mu_);
    armed_seq_ = 0;
  }

  // What a finishing thread wrote of answer `seq`.
  struct Written {
    bool tried = false;  // the arm was this answer's: `head` is its head and `bytes` what went out
    std::string head;
    size_t bytes = 0;
  };
  // Any thread: writes answer `seq` if it is armed (keep-alive answers only), as far as the socket
  // takes it without blocking; the loop writes what is left.
  Written TryWrite(uint64_t seq, const HttpResponse& response);

 private:
  std::mutex mu_;
  uint64_t armed_seq_ = 0;  // 0: not armed
  int fd_ = -1;
};

}  // namespace gebe
