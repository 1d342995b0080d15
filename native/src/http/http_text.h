// Small text helpers of the native HTTP server: reason phrases and JSON error answers in the
// JS server's shape ({"error": "..."}).
#pragma once

#include <cstdio>
#include <ctime>
#include <string>

namespace gebe {

inline const char* ReasonPhrase(int status) {
  switch (status) {
    case 200: return "OK";
    case 204: return "No Content";
    case 400: return "Bad Request";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 408: return "Request Timeout";
    case 413: return "Payload Too Large";
    case 429: return "Too Many Requests";
    case 431: return "Request Header Fields Too Large";
    case 500: return "Internal Server Error";
    case 502: return "Bad Gateway";
    case 503: return "Service Unavailable";
    case 504: return "Gateway Timeout";
    default: return status < 300 ? "OK" : status < 500 ? "Bad Request" : "Internal Server Error";
  }
}

inline bool EqualsIgnoreCase(const std::string& a, const char* b) {
  size_t i = 0;
  for (; i < a.size() && b[i] != '\0'; ++i) {
    char x = a[i] >= 'A' && a[i] <= 'Z' ? char(a[i] + 32) : a[i];
    if (x != b[i]) return false;
  }
  return i == a.size() && b[i] == '\0';
}

// "Date: Sun, 06 Nov 1994 08:49:37 GMT\r\n" (RFC 9110's IMF-fixdate, which a server with a
// clock must send, as node:http does). Built once per second per thread: answers are written on
// the server's loop thread only. Day and month names are spelled out, not taken from the locale.
inline const std::string& DateHeaderLine() {
  static const char* const kDays[] = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};
  static const char* const kMonths[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  thread_local std::time_t cached_second = -1;
  thread_local std::string line;
  std::time_t now = std::time(nullptr);
  if (now != cached_second) {
    std::tm t{};
    gmtime_r(&now, &t);
    char text[64];
    std::snprintf(text, sizeof(text), "Date: %s, %02d %s %04d %02d:%02d:%02d GMT\r\n", kDays[t.tm_wday % 7], t.tm_mday,
                  kMonths[t.tm_mon % 12], t.tm_year + 1900, t.tm_hour, t.tm_min, t.tm_sec);
    line = text;
    cached_second = now;
  }
  return line;
}

// The head of an error answer that closes the connection.
inline std::string ErrorHead(int status, size_t body_length) {
  return "HTTP/1.1 " + std::to_string(status) + " " + ReasonPhrase(status) +
         "\r\nContent-Type: application/json\r\nContent-Length: " + std::to_string(body_length) + "\r\n" +
         DateHeaderLine() + "Connection: close\r\n\r\n";
}

}  // namespace gebe
