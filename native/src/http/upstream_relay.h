// Forwards one request at a time to the JS server (node:http on a private Unix socket) over a lazily opened,
// kept-alive connection, and relays its answer to the client byte for byte, using llhttp in
// response mode only to find where the answer ends.
#pragma once

#include <uv.h>

#include <memory>
#include <string>

#include "http/fast_path.h"
#include "llhttp.h"

namespace gebe {

class HttpConnection;
class HttpServer;

class UpstreamRelay {
 public:
  UpstreamRelay(HttpServer* server, HttpConnection* connection);
  // Sends `request` (its body joined) upstream. `close_after`: ask the JS server to close after
  // answering (its answer then says Connection: close).
  void Forward(const HttpRequest& request, bool close_after);
  // The client connection is going away: close upstream; the relay deletes itself once closed.
  void Detach();
  // The client drained its write queue below the high-water mark: read upstream again.
  void ResumeIfPaused();

 private:
  enum class Upstream { kNone, kConnecting, kOpen };

  static void OnConnect(uv_connect_t* req, int status);
  static void OnWrite(uv_write_t* req, int status);
  static void OnAlloc(uv_handle_t* handle, size_t suggested, uv_buf_t* buf);
  static void OnRead(uv_stream_t* stream, ssize_t nread, const uv_buf_t* buf);
  static void OnClosed(uv_handle_t* handle);
  static int OnHeadersComplete(llhttp_t* p);
  static int OnMessageComplete(llhttp_t* p);
  static const llhttp_settings_t* Settings();

  void Connect();
  void Send();
  void CloseUpstream();
  void Fail(const std::string& why);
  void Complete();
  void MaybeDelete();
  bool RetryOnFreshConnection();

  HttpServer* server_;
  HttpConnection* connection_;  // null once detached
  uv_pipe_t* sock_ = nullptr;     // the current upstream connection (each is heap-allocated,
  int open_sockets_ = 0;         // freed when closed; the relay goes once all are closed)
  Upstream upstream_ = Upstream::kNone;
  bool reused_ = false;          // the request went over a connection that answered before
  bool retried_ = false;
  bool paused_ = false;
  bool active_ = false;          // a request is forwarded and not yet fully answered
  bool message_complete_ = false;
  bool head_request_ = false;
  size_t relayed_ = 0;
  llhttp_t parser_{};

  // The request being forwarded (kept for one retry on a fresh connection).
  std::shared_ptr<const std::string> head_;
  std::shared_ptr<std::vector<uint8_t>> body_owner_;
  const uint8_t* body_ = nullptr;
  size_t body_size_ = 0;
};

}  // namespace gebe
