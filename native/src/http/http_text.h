// Small text helpers of the native HTTP server: reason phrases and JSON error answers in the
// JS server's shape ({"error": "..."}).
#pragma once

#include <cstdio>
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

inline std::string JsonError(const std::string& message) {
  std::string out = "{\"error\":\"";
  for (unsigned char c : message) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += char(c);
    } else if (c < 0x20) {
      char esc[8];
      std::snprintf(esc, sizeof(esc), "\\u%04x", c);
      out += esc;
    } else {
      out += char(c);
    }
  }
  out += "\"}";
  return out;
}

// The head of an error answer that closes the connection.
inline std::string ErrorHead(int status, size_t body_length) {
  return "HTTP/1.1 " + std::to_string(status) + " " + ReasonPhrase(status) +
         "\r\nContent-Type: application/json\r\nContent-Length: " + std::to_string(body_length) +
         "\r\nConnection: close\r\n\r\n";
}

}  // namespace gebe
