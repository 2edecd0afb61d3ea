#include "controller/serve/http_server.h"

#include <fcntl.h>
#include <openssl/ssl.h>
#include <unistd.h>

#include <atomic>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <optional>
#include <thread>
#include <type_traits>
#include <vector>

#include "controller/serve/listen_endpoint.h"
#include "controller/serve/request_target.h"
#include "controller/serve/response_headers.h"
#include "core/base/connection_slots.h"

namespace iofleet::controller {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = boost::beast::http;
namespace ssl = boost::asio::ssl;
using tcp = boost::asio::ip::tcp;

// How long a closing connection waits for the client to take our last answer (and, on TLS, for
// its close_notify), so that an answer such as 413 is read rather than lost to a reset.
constexpr std::chrono::seconds kLingerTime{2};

// What every connection shares with the server.
struct ServerState {
  ServerState(HttpServerOptions o, HttpHandler h)
      : options(std::move(o)), handler(std::move(h)), slots(options.max_connections, options.max_connections_per_client) {}
  const HttpServerOptions options;
  const HttpHandler handler;
  bool tls = false;
  ConnectionSlots slots;  // who holds the open connections, and whom a newcomer pushes out
};

bool AllowedMethod(http::verb verb) {
  return verb == http::verb::get || verb == http::verb::head || verb == http::verb::post || verb == http::verb::delete_;
}

// A copy of a descriptor the answer owns: the handler's UniqueFd closes its own when it goes.
int DuplicateFd(int fd) { return ::fcntl(fd, F_DUPFD_CLOEXEC, 0); }

void LogError(const std::string& what) { std::fprintf(stderr, "iofleet serve: %s\n", what.c_str()); }

// One connection, plain (beast::tcp_stream) or TLS (beast::ssl_stream<beast::tcp_stream>). Every
// operation runs on the socket's strand, so no two handlers of one connection run at once.
template <typename Stream>
class Session final : public Evictable, public std::enable_shared_from_this<Session<Stream>> {
 public:
  static constexpr bool kTls = !std::is_same_v<Stream, beast::tcp_stream>;

  template <typename... StreamArgs>
  Session(std::shared_ptr<ServerState> state, std::string peer, StreamArgs&&... stream_args)
      : state_(std::move(state)), peer_(std::move(peer)), stream_(std::forward<StreamArgs>(stream_args)...) {}

  ~Session() { state_->slots.Release(slot_); }

  // Called from the acceptor: the close runs on the connection's strand, after whatever runs there.
  void Evict() override {
    asio::post(stream_.get_executor(), [self = this->shared_from_this()] { self->Lowest().close(); });
  }

  void Start(uint64_t slot) {
    slot_ = slot;
    // The strand of the socket: the first operation runs on it too.
    asio::dispatch(stream_.get_executor(), [self = this->shared_from_this()] {
      if constexpr (kTls) {
        self->Waiting();  // the handshake has begun: never its own address's to take
        self->Lowest().expires_after(self->state_->options.request_timeout);
        self->stream_.async_handshake(ssl::stream_base::server, [self](beast::error_code ec) {
          if (ec) return self->Lowest().close();  // a plain client, a bad handshake, a timeout
          self->Read();
        });
      } else {
        self->Read();
      }
    });
  }

 private:
  beast::tcp_stream& Lowest() { return beast::get_lowest_layer(stream_); }

  // Waiting on the client (a handshake, a request under way, its close): a full server may close
  // this for a newcomer of an address that holds more.
  void Waiting() { state_->slots.SetState(slot_, ConnectionSlots::State::kWaiting); }

  void Read() {
    parser_.emplace();
    parser_->header_limit(static_cast<std::uint32_t>(std::min<size_t>(state_->options.max_header, UINT32_MAX)));
    parser_->body_limit(state_->options.max_body);
    // One deadline for the whole request: a client trickling its headers a byte at a time is
    // cut off when it passes, however steadily it sends.
    Lowest().expires_after(state_->options.request_timeout);
    if (buffer_.size() > 0) return ReadRest();  // a pipelined request is here already
    // Idle until the request's first bytes: only then may a newcomer of its own address not
    // take its slot (ConnectionSlots).
    state_->slots.SetState(slot_, ConnectionSlots::State::kIdle);
    stream_.async_read_some(buffer_.prepare(std::min<size_t>(4096, buffer_.max_size() - buffer_.size())),
                            [self = this->shared_from_this()](beast::error_code ec, size_t n) {
                              if (ec) return self->Lowest().close();  // closed, reset or timed out while idle
                              self->buffer_.commit(n);
                              self->ReadRest();
                            });
  }

  void ReadRest() {
    Waiting();
    http::async_read(stream_, buffer_, *parser_,
                     [self = this->shared_from_this()](beast::error_code ec, size_t) { self->OnRead(ec); });
  }

  void OnRead(beast::error_code ec) {
    state_->slots.SetState(slot_, ConnectionSlots::State::kBusy);  // answered from here on
    // After a refused request the connection closes: what follows it on the wire is unread.
    const auto& options = state_->options;
    if (ec == http::error::header_limit) {
      std::string reason = "request headers larger than " + std::to_string(options.max_header) + " bytes";
      return Answer(HttpResponse::Error(431, reason), false, false);
    }
    // The buffer's cap: chunk headers and trailers, which neither limit above counts.
    if (ec == http::error::body_limit || ec == http::error::buffer_overflow) {
      std::string reason = "request body larger than " + std::to_string(options.max_body) + " bytes";
      return Answer(HttpResponse::Error(413, reason), false, false);
    }
    bool malformed = ec && ec.category() == http::make_error_code(http::error::bad_target).category() &&
                     ec != http::error::end_of_stream && ec != http::error::partial_message;
    if (malformed) {
      return Answer(HttpResponse::Error(400, "malformed request: " + ec.message()), false, false);
    }
    if (ec) return Lowest().close();  // end of stream, timeout, reset: nobody to answer

    auto& message = parser_->get();
    bool keep_alive = message.keep_alive();
    bool head = message.method() == http::verb::head;
    if (!AllowedMethod(message.method())) {
      HttpResponse response = HttpResponse::Error(405, "method " + std::string(message.method_string()) + " not allowed");
      response.headers.emplace_back("Allow", "GET, HEAD, POST, DELETE");
      return Answer(std::move(response), keep_alive, head);
    }
    HttpRequest request;
    request.raw_target = std::string(message.target());
    auto target = ParseRequestTarget(request.raw_target);
    if (!target.ok()) return Answer(HttpResponse::Error(400, "bad request target: " + target.status().message()), keep_alive, head);
    request.method = std::string(message.method_string());
    request.path = std::move(target->path);
    request.query = std::move(target->query);
    request.authorization = std::string(message[http::field::authorization]);
    request.content_type = std::string(message[http::field::content_type]);
    request.host = std::string(message[http::field::host]);
    request.body = std::move(message.body());
    request.peer = peer_;
    HttpResponse response;
    try {
      response = state_->handler(request);
    } catch (const std::exception& e) {
      LogError(request.method + " " + request.raw_target + ": the handler failed: " + e.what());
      response = HttpResponse::Error(500, "internal error");
    } catch (...) {
      LogError(request.method + " " + request.raw_target + ": the handler failed");
      response = HttpResponse::Error(500, "internal error");
    }
    Answer(std::move(response), keep_alive, head);
  }

  void Answer(HttpResponse response, bool keep_alive, bool head) {
    // 1xx are the server's to send, not an answer to a request; Beast refuses to send a 204 or
    // 304 with a body (it throws), and HTTP forbids one.
    if (response.status < 200 || response.status > 599) {
      LogError("a handler answered status " + std::to_string(response.status));
      response = HttpResponse::Error(500, "internal error");
    }
    bool bodiless = response.status == 204 || response.status == 304;
    if (bodiless) {
      response.body.clear();
      response.file.Reset();
      head = false;  // the answer has no length to announce either way
    }
    if (response.file.valid()) {
      beast::error_code ec;
      beast::file file;
      int fd = DuplicateFd(response.file.get());
      if (fd >= 0) {
        file.native_handle(fd);
        http::response<http::file_body> answer{static_cast<http::status>(response.status), 11};
        answer.body().reset(std::move(file), ec);
        // The answer's length is the file's size: send it from the start, whatever the handler
        // read of it (the copy shares the handler's offset).
        if (!ec) answer.body().file().seek(0, ec);
        if (!ec) {
          SetResponseHeaders(response, kTls, answer.base());
          answer.keep_alive(keep_alive);
          answer.prepare_payload();
          if (head) return Send(HeadOf(std::move(answer.base()), answer.body().size()), keep_alive);
          return Send(std::move(answer), keep_alive);
        }
      }
      LogError("cannot send the file answering a request: " + (fd < 0 ? std::string(std::strerror(errno)) : ec.message()));
      response = HttpResponse::Error(500, "internal error");
    }
    http::response<http::string_body> answer{static_cast<http::status>(response.status), 11};
    SetResponseHeaders(response, kTls, answer.base());
    answer.keep_alive(keep_alive);
    answer.body() = std::move(response.body);
    answer.prepare_payload();
    if (head) return Send(HeadOf(std::move(answer.base()), answer.body().size()), keep_alive);
    Send(std::move(answer), keep_alive);
  }

  // HEAD: the headers of GET, with GET's Content-Length, and no body.
  static http::response<http::empty_body> HeadOf(http::response_header<> header, size_t length) {
    http::response<http::empty_body> answer{std::move(header)};
    answer.content_length(length);
    return answer;
  }

  template <typename Body>
  void Send(http::response<Body> answer, bool keep_alive) {
    auto owned = std::make_shared<http::response<Body>>(std::move(answer));
    Lowest().expires_after(state_->options.write_timeout);
    http::async_write(stream_, *owned, [self = this->shared_from_this(), owned, keep_alive](beast::error_code ec, size_t) {
      if (ec) return self->Lowest().close();
      if (!keep_alive) return self->Linger();
      self->Read();
    });
  }

  // Closes after an answer: the client may still be sending (a body too large, say), and
  // closing with its bytes unread would reset the connection before it read the answer.
  void Linger() {
    Waiting();
    Lowest().expires_after(kLingerTime);
    if constexpr (kTls) {
      stream_.async_shutdown([self = this->shared_from_this()](beast::error_code) { self->Lowest().close(); });
    } else {
      beast::error_code ignored;
      Lowest().socket().shutdown(tcp::socket::shutdown_send, ignored);
      Drain();
    }
  }

  void Drain() {
    Lowest().async_read_some(asio::buffer(drain_),
                             [self = this->shared_from_this()](beast::error_code ec, size_t) {
                               if (ec) return self->Lowest().close();
                               self->Drain();
                             });
  }

  std::shared_ptr<ServerState> state_;
  std::string peer_;
  uint64_t slot_ = 0;  // 0: never admitted
  Stream stream_;
  // Bounded: Beast 1.74 counts neither chunk extensions nor trailers against its limits, so an
  // endless chunked request would otherwise grow it for the whole request time.
  beast::flat_buffer buffer_{state_->options.max_header + state_->options.max_body + 8192};
  std::optional<http::request_parser<http::string_body>> parser_;
  char drain_[4096];
};

Result<std::unique_ptr<ssl::context>> LoadTls(const std::string& dir) {
  auto context = std::make_unique<ssl::context>(ssl::context::tls_server);
  context->set_options(ssl::context::default_workarounds | ssl::context::no_sslv2 | ssl::context::no_sslv3 |
                       ssl::context::no_tlsv1 | ssl::context::no_tlsv1_1 | ssl::context::no_compression |
                       ssl::context::single_dh_use);
  // A client may not make the server redo handshakes (CPU for free).
  SSL_CTX_set_options(context->native_handle(), SSL_OP_NO_RENEGOTIATION);
  if (SSL_CTX_set_min_proto_version(context->native_handle(), TLS1_2_VERSION) != 1) {
    return Status(Code::kInternal, "tls_dir: cannot set TLS 1.2 as the minimum");
  }
  std::string cert = dir + "/cert.pem";
  std::string key = dir + "/key.pem";
  for (const std::string& path : {cert, key}) {
    if (::access(path.c_str(), R_OK) != 0) return PosixError("tls_dir: " + path, errno);
  }
  beast::error_code ec;
  context->use_certificate_chain_file(cert, ec);
  if (ec) return InvalidArgument("tls_dir: " + cert + ": not a usable certificate (" + ec.message() + ")");
  context->use_private_key_file(key, ssl::context::pem, ec);
  if (ec) return InvalidArgument("tls_dir: " + key + ": not a usable private key (" + ec.message() + ")");
  if (SSL_CTX_check_private_key(context->native_handle()) != 1) {
    return InvalidArgument("tls_dir: " + key + ": does not match the certificate " + cert);
  }
  return context;
}

}  // namespace

struct HttpServer::Impl {
  std::shared_ptr<ServerState> state;
  std::unique_ptr<ssl::context> tls;
  std::unique_ptr<asio::io_context> io;
  std::optional<tcp::acceptor> acceptor;
  std::optional<asio::steady_timer> retry;
  std::vector<std::thread> threads;
  int port = 0;
  std::mutex stop_mutex;
  bool stopped = false;

  void Accept() {
    acceptor->async_accept(asio::make_strand(*io), [this](beast::error_code ec, tcp::socket socket) {
      if (ec == asio::error::operation_aborted) return;
      if (ec) {
        // Out of descriptors, say: try again shortly rather than spin.
        LogError("accept: " + ec.message());
        retry->expires_after(std::chrono::milliseconds(100));
        retry->async_wait([this](beast::error_code wait_error) {
          if (!wait_error) Accept();
        });
        return;
      }
      Admit(std::move(socket));
      Accept();
    });
  }

  void Admit(tcp::socket socket) {
    beast::error_code ec;
    std::string peer = socket.remote_endpoint(ec).address().to_string();
    if (ec) return;  // gone already
    if (tls) return Open<Session<beast::ssl_stream<beast::tcp_stream>>>(std::move(peer), std::move(socket), *tls);
    Open<Session<beast::tcp_stream>>(std::move(peer), std::move(socket));
  }

  // A connection refused a slot is closed at once: a flood costs an accept each, not memory.
  template <typename S, typename... StreamArgs>
  void Open(std::string peer, StreamArgs&&... stream_args) {
    auto session = std::make_shared<S>(state, peer, std::forward<StreamArgs>(stream_args)...);
    const uint64_t slot = state->slots.Admit(peer, session);
    if (slot != 0) session->Start(slot);
  }

  void Run() {
    while (true) {
      try {
        io->run();
        return;
      } catch (const std::exception& e) {
        LogError(std::string("a connection failed: ") + e.what());
      }
    }
  }
};

HttpServer::HttpServer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

HttpServer::~HttpServer() { Stop(); }

int HttpServer::port() const { return impl_->port; }
bool HttpServer::tls() const { return impl_->state->tls; }

Result<std::unique_ptr<HttpServer>> HttpServer::Start(const HttpServerOptions& options, HttpHandler handler) {
  if (!handler) return InvalidArgument("serve: no request handler");
  if (options.threads < 1) return InvalidArgument("serve: threads must be at least 1");
  if (options.max_connections < 1 || options.max_connections_per_client < 1) {
    return InvalidArgument("serve: max_connections and max_connections_per_client must be at least 1");
  }
  if (options.max_body < 1 || options.max_header < 1) return InvalidArgument("serve: max_body and max_header must be at least 1");
  if (options.request_timeout.count() < 1 || options.write_timeout.count() < 1) {
    return InvalidArgument("serve: request_timeout and write_timeout must be at least 1 s");
  }
  auto endpoint = ResolveListenAddress(options.listen);
  if (!endpoint.ok()) return endpoint.status();
  auto impl = std::make_unique<Impl>();
  impl->state = std::make_shared<ServerState>(options, std::move(handler));
  if (options.tls_dir.empty()) {
    if (!endpoint->loopback) {
      return InvalidArgument("listen \"" + options.listen +
                             "\": plain HTTP only on a loopback address; set tls_dir to serve HTTPS on this one");
    }
  } else {
    auto tls = LoadTls(options.tls_dir);
    if (!tls.ok()) return tls.status();
    impl->tls = std::move(tls).value();
    impl->state->tls = true;
  }
  impl->io = std::make_unique<asio::io_context>(options.threads);
  impl->acceptor.emplace(*impl->io);
  impl->retry.emplace(*impl->io);
  beast::error_code ec;
  auto fail = [&](const char* what) { return Unavailable("listen " + options.listen + ": " + what + ": " + ec.message()); };
  impl->acceptor->open(endpoint->endpoint.protocol(), ec);
  if (ec) return fail("socket");
  impl->acceptor->set_option(asio::socket_base::reuse_address(true), ec);
  if (ec) return fail("SO_REUSEADDR");
  impl->acceptor->bind(endpoint->endpoint, ec);
  if (ec) return fail("bind");
  impl->acceptor->listen(asio::socket_base::max_listen_connections, ec);
  if (ec) return fail("listen");
  impl->port = impl->acceptor->local_endpoint(ec).port();
  impl->Accept();
  Impl* raw = impl.get();
  for (int i = 0; i < options.threads; ++i) raw->threads.emplace_back([raw] { raw->Run(); });
  return std::unique_ptr<HttpServer>(new HttpServer(std::move(impl)));
}

void HttpServer::Stop() {
  if (!impl_) return;
  std::lock_guard lock(impl_->stop_mutex);
  if (impl_->stopped) return;
  impl_->stopped = true;
  impl_->io->stop();
  for (auto& thread : impl_->threads) thread.join();
  impl_->threads.clear();
  beast::error_code ignored;
  impl_->acceptor->close(ignored);
  impl_->retry.reset();
  impl_->acceptor.reset();
  // Destroying the io_context destroys the handlers still pending, and with them the last
  // references to every connection: their sockets close here, before the TLS context goes.
  impl_->io.reset();
  impl_->tls.reset();
}

}  // namespace iofleet::controller
