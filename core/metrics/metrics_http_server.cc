#include "core/metrics/metrics_http_server.h"

#include <pthread.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <algorithm>
#include <cstdio>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "core/base/connection_slots.h"

namespace iofleet {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = boost::beast::http;
using tcp = boost::asio::ip::tcp;

constexpr std::uint32_t kMaxHeader = 8 * 1024;  // a scrape's request is a few hundred bytes
constexpr std::uint64_t kMaxBody = 1024;       // a GET has none
constexpr std::chrono::seconds kLingerTime{2};
constexpr const char* kContentType = "text/plain; version=0.0.4; charset=utf-8";

struct ServerState {
  ServerState(MetricsHttpOptions o, MetricsExposition e)
      : options(std::move(o)), exposition(std::move(e)), slots(options.max_connections, options.max_connections_per_client) {}
  const MetricsHttpOptions options;
  const MetricsExposition exposition;
  ConnectionSlots slots;
};

void LogError(const std::string& what) { std::fprintf(stderr, "metrics server: %s\n", what.c_str()); }

// One connection, its operations on its socket's strand.
class Session final : public Evictable, public std::enable_shared_from_this<Session> {
 public:
  Session(std::shared_ptr<ServerState> state, tcp::socket socket) : state_(std::move(state)), stream_(std::move(socket)) {}
  ~Session() { state_->slots.Release(slot_); }

  void Evict() override {
    asio::post(stream_.get_executor(), [self = shared_from_this()] { self->stream_.close(); });
  }

  void Start(uint64_t slot) {
    slot_ = slot;
    asio::dispatch(stream_.get_executor(), [self = shared_from_this()] { self->Read(); });
  }

 private:
  void SetState(ConnectionSlots::State state) { state_->slots.SetState(slot_, state); }

  // Idle until the first bytes of the request arrive (a pipelined one is there already), then
  // waiting for the rest: the deadline covers both.
  void Read() {
    parser_.emplace();
    parser_->header_limit(kMaxHeader);
    parser_->body_limit(kMaxBody);
    stream_.expires_after(state_->options.request_timeout);
    if (buffer_.size() > 0) return ReadRest();
    SetState(ConnectionSlots::State::kIdle);
    stream_.async_read_some(buffer_.prepare(std::min<size_t>(4096, buffer_.max_size() - buffer_.size())),
                            [self = shared_from_this()](beast::error_code ec, size_t n) {
                              if (ec) return self->stream_.close();  // closed, reset or timed out while idle
                              self->buffer_.commit(n);
                              self->ReadRest();
                            });
  }

  void ReadRest() {
    SetState(ConnectionSlots::State::kWaiting);
    http::async_read(stream_, buffer_, *parser_, [self = shared_from_this()](beast::error_code ec, size_t) { self->OnRead(ec); });
  }

  void OnRead(beast::error_code ec) {
    SetState(ConnectionSlots::State::kBusy);
    if (ec == http::error::header_limit || ec == http::error::body_limit || ec == http::error::buffer_overflow) {
      return Answer(http::status::payload_too_large, "request too large\n", false, false);
    }
    const bool malformed = ec && ec.category() == http::make_error_code(http::error::bad_target).category() &&
                           ec != http::error::end_of_stream && ec != http::error::partial_message;
    if (malformed) return Answer(http::status::bad_request, "malformed request\n", false, false);
    if (ec) return stream_.close();  // end of stream, timeout, reset: nobody to answer

    const auto& request = parser_->get();
    const bool keep_alive = request.keep_alive();
    const bool head = request.method() == http::verb::head;
    const std::string_view target(request.target().data(), request.target().size());
    const std::string_view path = target.substr(0, target.find('?'));
    if (path != "/metrics") return Answer(http::status::not_found, "no such page: try /metrics\n", keep_alive, head);
    if (request.method() != http::verb::get && !head) {
      return Answer(http::status::method_not_allowed, "GET /metrics\n", keep_alive, head);
    }
    std::string body;
    try {
      body = state_->exposition();
    } catch (const std::exception& e) {
      LogError(std::string("the exposition failed: ") + e.what());
      return Answer(http::status::internal_server_error, "internal error\n", keep_alive, head);
    } catch (...) {
      LogError("the exposition failed");
      return Answer(http::status::internal_server_error, "internal error\n", keep_alive, head);
    }
    Answer(http::status::ok, std::move(body), keep_alive, head);
  }

  void Answer(http::status status, std::string body, bool keep_alive, bool head) {
    http::response<http::string_body> answer{status, 11};
    answer.set(http::field::content_type, status == http::status::ok ? kContentType : "text/plain; charset=utf-8");
    if (status == http::status::method_not_allowed) answer.set(http::field::allow, "GET, HEAD");
    answer.set(http::field::cache_control, "no-store");
    answer.keep_alive(keep_alive);
    answer.body() = std::move(body);
    answer.prepare_payload();
    if (!head) return Send(std::make_shared<http::response<http::string_body>>(std::move(answer)), keep_alive);
    // HEAD: GET's headers and length, no body.
    const size_t length = answer.body().size();
    auto headers = std::make_shared<http::response<http::empty_body>>(std::move(answer.base()));
    headers->content_length(length);
    Send(std::move(headers), keep_alive);
  }

  template <typename Message>
  void Send(std::shared_ptr<Message> answer, bool keep_alive) {
    stream_.expires_after(state_->options.write_timeout);
    http::async_write(stream_, *answer, [self = shared_from_this(), answer, keep_alive](beast::error_code ec, size_t) {
      if (ec) return self->stream_.close();
      if (!keep_alive) return self->Linger();
      self->Read();
    });
  }

  // Closes after an answer, reading what the client still sends (a refused body) so that the
  // close is not a reset that loses the answer.
  void Linger() {
    SetState(ConnectionSlots::State::kWaiting);
    stream_.expires_after(kLingerTime);
    beast::error_code ignored;
    stream_.socket().shutdown(tcp::socket::shutdown_send, ignored);
    Drain();
  }

  void Drain() {
    stream_.async_read_some(asio::buffer(drain_), [self = shared_from_this()](beast::error_code ec, size_t) {
      if (ec) return self->stream_.close();
      self->Drain();
    });
  }

  std::shared_ptr<ServerState> state_;
  uint64_t slot_ = 0;
  beast::tcp_stream stream_;
  beast::flat_buffer buffer_{kMaxHeader + kMaxBody + 1024};
  std::optional<http::request_parser<http::string_body>> parser_;
  char drain_[1024];
};

}  // namespace

struct MetricsHttpServer::Impl {
  std::shared_ptr<ServerState> state;
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

  // A connection refused a slot is closed at once.
  void Admit(tcp::socket socket) {
    beast::error_code ec;
    const std::string peer = socket.remote_endpoint(ec).address().to_string();
    if (ec) return;  // gone already
    auto session = std::make_shared<Session>(state, std::move(socket));
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

MetricsHttpServer::MetricsHttpServer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

MetricsHttpServer::~MetricsHttpServer() { Stop(); }

int MetricsHttpServer::port() const { return impl_->port; }

Result<std::unique_ptr<MetricsHttpServer>> MetricsHttpServer::Start(const MetricsHttpOptions& options, MetricsExposition exposition) {
  if (!exposition) return InvalidArgument("metrics server: no exposition");
  if (options.threads < 1 || options.max_connections < 1 || options.max_connections_per_client < 1 ||
      options.request_timeout.count() < 1 || options.write_timeout.count() < 1 || options.port < 0 || options.port > 65535) {
    return InvalidArgument("metrics server: threads, connections and timeouts must be positive, the port 0..65535");
  }
  std::string host = options.host;
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  auto impl = std::make_unique<Impl>();
  impl->state = std::make_shared<ServerState>(options, std::move(exposition));
  impl->io = std::make_unique<asio::io_context>(options.threads);
  beast::error_code ec;
  tcp::resolver resolver(*impl->io);
  auto resolved = resolver.resolve(host, std::to_string(options.port), tcp::resolver::passive, ec);
  if (ec || resolved.empty()) return Unavailable("cannot resolve \"" + host + "\": " + ec.message());
  const tcp::endpoint endpoint = resolved.begin()->endpoint();
  impl->acceptor.emplace(*impl->io);
  impl->retry.emplace(*impl->io);
  auto fail = [&](const char* what) { return Unavailable(std::string(what) + ": " + ec.message()); };
  impl->acceptor->open(endpoint.protocol(), ec);
  if (ec) return fail("socket");
  impl->acceptor->set_option(asio::socket_base::reuse_address(true), ec);
  if (ec) return fail("SO_REUSEADDR");
  impl->acceptor->bind(endpoint, ec);
  if (ec) return fail("bind");
  impl->acceptor->listen(asio::socket_base::max_listen_connections, ec);
  if (ec) return fail("listen");
  impl->port = impl->acceptor->local_endpoint(ec).port();
  impl->Accept();
  Impl* raw = impl.get();
  for (int i = 0; i < options.threads; ++i) {
    raw->threads.emplace_back([raw] { raw->Run(); });
    // Named for `top -H` and bench/scrape-cost, which counts the collectors' CPU by it.
    pthread_setname_np(raw->threads.back().native_handle(), "iofleet-metrics");
  }
  return std::unique_ptr<MetricsHttpServer>(new MetricsHttpServer(std::move(impl)));
}

void MetricsHttpServer::Stop() {
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
  impl_->io.reset();  // the pending handlers, and with them every connection, go here
}

}  // namespace iofleet
