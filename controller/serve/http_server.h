// `iofleet serve`'s HTTP(S) server: HTTP/1.1 with keep-alive on a Boost.Asio io_context, each
// connection on its own strand, Boost.Beast parsing with size and time limits. It checks what
// every route needs checked (method, target, limits, the security headers of every answer) and
// hands the rest to one handler; which routes exist and which need the token is the handler's.
#pragma once

#include <chrono>
#include <cstddef>
#include <memory>
#include <string>

#include "controller/serve/http_message.h"
#include "core/base/status.h"

namespace iofleet::controller {

struct HttpServerOptions {
  std::string listen;   // HOST:PORT; port 0: any free port (HttpServer::port() tells which)
  std::string tls_dir;  // cert.pem and key.pem (deploy/tls/make-certs DIR server NAME SAN...);
                        // empty: plain HTTP, refused unless HOST is a loopback address
  size_t max_body = 64 * 1024;    // a larger body is answered 413 and the connection closed
  size_t max_header = 16 * 1024;  // larger headers (request line included): 431, then closed
  // The whole request (headers and body) must arrive within this from the moment the server
  // starts waiting for it; an idle keep-alive connection is closed after it too. The TLS
  // handshake has the same limit.
  std::chrono::seconds request_timeout{10};
  // The whole answer must be taken by the client within this (report files can be large).
  std::chrono::seconds write_timeout{60};
  // Open connections at most. When all are taken, a new connection pushes out the oldest
  // connection waiting on its client (a TLS handshake, a request not yet whole, an idle
  // keep-alive, a lingering close) of the address holding the most, if that address holds more
  // than the newcomer's; else the oldest waiting connection of the newcomer's own address; else
  // the newcomer is closed as soon as it is accepted (not queued). So half-open connections from
  // a few addresses cannot lock everyone else out (core/base/connection_slots.h).
  size_t max_connections = 256;
  // Open connections from one client address at most. A newcomer beyond it takes the place of
  // that address's oldest waiting connection (as nginx drains idle keep-alive connections), or is
  // closed as it is accepted when all of them are being answered.
  size_t max_connections_per_client = 32;
  int threads = 2;
};

class HttpServer {
 public:
  // Binds, loads the certificate when tls_dir is set, and starts the threads. Errors: a bad
  // listen address, plain HTTP on a non-loopback address, a missing or bad cert.pem or key.pem
  // (named), an address in use.
  static Result<std::unique_ptr<HttpServer>> Start(const HttpServerOptions& options, HttpHandler handler);

  int port() const;
  bool tls() const;
  // Closes the listener and every open connection (a handler running finishes first), and
  // joins the threads. Idempotent. Not from a handler (it would wait for itself).
  void Stop();
  ~HttpServer();

  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  struct Impl;

 private:
  explicit HttpServer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace iofleet::controller
