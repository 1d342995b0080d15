#include "http/direct_answer.h"

#include <sys/socket.h>
#include <sys/uio.h>

#include <vector>

#include "http/http_text.h"
#include "scheduler/scheduled_request.h"

namespace gebe {

size_t AnswerBodyLength(const HttpResponse& response) {
  size_t length = response.owned_body.size();
  for (const auto& piece : response.pieces) length += piece.second;
  return length;
}

std::string AnswerHead(const HttpResponse& r, size_t body_length, bool close) {
  std::string head;
  head.reserve(128 + r.headers.size());
  head += "HTTP/1.1 ";
  head += std::to_string(r.status);
  head += ' ';
  head += ReasonPhrase(r.status);
  head += "\r\nContent-Length: ";
  head += std::to_string(body_length);
  head += "\r\n";
  head += DateHeaderLine();
  head += close ? "Connection: close\r\n" : "Connection: keep-alive\r\n";
  head += r.headers;
  head += "\r\n";
  return head;
}

DirectAnswer::Written DirectAnswer::TryWrite(uint64_t seq, const HttpResponse& response) {
  Written out;
  // Several answers of one batch go to the loop, which writes them in one wake; wrk-style clients
  // then send their next requests while it is awake. Only a lone answer is worth writing here.
  if (response.close || NativeAnswerBatch::OpenAnswers() > 1) return out;
  std::lock_guard<std::mutex> lock(mu_);
  if (armed_seq_ == 0 || armed_seq_ != seq) return out;
  armed_seq_ = 0;
  out.tried = true;
  out.head = AnswerHead(response, AnswerBodyLength(response), false);
  std::vector<iovec> iov;
  iov.reserve(2 + response.pieces.size());
  iov.push_back({out.head.data(), out.head.size()});
  if (!response.owned_body.empty()) iov.push_back({const_cast<char*>(response.owned_body.data()), response.owned_body.size()});
  for (const auto& piece : response.pieces) {
    if (piece.second > 0) iov.push_back({const_cast<uint8_t*>(piece.first), piece.second});
  }
  msghdr msg{};
  msg.msg_iov = iov.data();
  msg.msg_iovlen = iov.size();
  // Non-blocking (libuv's socket); no SIGPIPE for a client that went away: the loop finds out itself.
  const ssize_t n = sendmsg(fd_, &msg, MSG_DONTWAIT | MSG_NOSIGNAL);
  out.bytes = n > 0 ? size_t(n) : 0;
  return out;
}

}  // namespace gebe
