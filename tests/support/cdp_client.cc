#include "tests/support/cdp_client.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <thread>

namespace iofleet::testing {

CdpBrowser::CdpBrowser(const std::string& chromium, const std::filesystem::path& profile_dir) {
  int commands[2], replies[2];  // commands: we write [1], the browser reads [0]; replies: the reverse
  if (pipe2(commands, O_CLOEXEC) != 0 || pipe2(replies, O_CLOEXEC) != 0) {
    error_ = std::string("pipe: ") + strerror(errno);
    return;
  }
  std::filesystem::create_directories(profile_dir);
  const std::string profile = "--user-data-dir=" + profile_dir.string();
  const std::string log = (profile_dir / "stderr").string();
  std::vector<std::string> args = {chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                                   "--disable-component-update", "--disable-sync", "--no-first-run", "--no-default-browser-check",
                                   "--disable-extensions", "--remote-debugging-pipe", profile, "about:blank"};
  std::vector<char*> argv;  // made before fork: the child of a threaded process should not allocate
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_ = fork();
  if (pid_ == 0) {
    // fds 3 and 4 as the protocol wants them (dup2 clears close-on-exec); the rest close at exec.
    int in = dup(commands[0]), out = dup(replies[1]);
    dup2(in, 3);
    dup2(out, 4);
    int err = open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (err >= 0) dup2(err, 2);
    int null = open("/dev/null", O_RDWR);
    if (null >= 0) {
      dup2(null, 0);
      dup2(null, 1);
    }
    execv(argv[0], argv.data());
    _exit(127);
  }
  close(commands[0]);
  close(replies[1]);
  to_ = commands[1];
  from_ = replies[0];
  if (pid_ < 0) {
    error_ = std::string("fork: ") + strerror(errno);
    close(to_);
    close(from_);
    to_ = from_ = -1;
  }
}

CdpBrowser::~CdpBrowser() {
  if (pid_ <= 0) return;
  if (to_ >= 0) Call("Browser.close", nlohmann::json::object(), "", std::chrono::seconds(2));
  for (int i = 0; i < 50; ++i) {
    if (waitpid(pid_, nullptr, WNOHANG) == pid_) {
      pid_ = -1;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  if (pid_ > 0) {
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
  }
  if (to_ >= 0) close(to_);
  if (from_ >= 0) close(from_);
}

std::optional<nlohmann::json> CdpBrowser::Next(std::chrono::steady_clock::time_point deadline) {
  for (;;) {
    if (size_t end = buffer_.find('\0'); end != std::string::npos) {
      std::string text = buffer_.substr(0, end);
      buffer_.erase(0, end + 1);
      try {
        return nlohmann::json::parse(text);
      } catch (const nlohmann::json::exception& e) {
        error_ = std::string("a message that is not JSON: ") + e.what();
        return std::nullopt;
      }
    }
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()).count();
    if (left <= 0) {
      error_ = "timed out";
      return std::nullopt;
    }
    pollfd p = {from_, POLLIN, 0};
    if (poll(&p, 1, static_cast<int>(left)) <= 0) continue;
    char chunk[65536];
    ssize_t n = read(from_, chunk, sizeof chunk);
    if (n <= 0) {
      error_ = "the browser closed its pipe (see its stderr in the profile directory)";
      return std::nullopt;
    }
    buffer_.append(chunk, static_cast<size_t>(n));
  }
}

std::optional<nlohmann::json> CdpBrowser::Call(const std::string& method, const nlohmann::json& params, const std::string& session,
                                               std::chrono::milliseconds timeout) {
  const int id = next_id_++;
  nlohmann::json message = {{"id", id}, {"method", method}, {"params", params}};
  if (!session.empty()) message["sessionId"] = session;
  std::string text = message.dump();
  text.push_back('\0');
  for (size_t done = 0; done < text.size();) {
    ssize_t n = write(to_, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      error_ = method + ": write: " + strerror(errno);
      return std::nullopt;
    }
    done += static_cast<size_t>(n);
  }
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    std::optional<nlohmann::json> reply = Next(deadline);
    if (!reply) {
      error_ = method + ": " + error_;
      return std::nullopt;
    }
    if (!reply->contains("id")) {
      events_.push_back(std::move(*reply));
      continue;
    }
    if ((*reply)["id"] != id) continue;
    if (reply->contains("error")) {
      error_ = method + ": " + (*reply)["error"].dump();
      return std::nullopt;
    }
    return reply->value("result", nlohmann::json::object());
  }
}

bool CdpBrowser::WaitForEvent(const std::string& method, std::chrono::milliseconds timeout) {
  for (const auto& e : events_) {
    if (e.value("method", "") == method) return true;
  }
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    std::optional<nlohmann::json> message = Next(deadline);
    if (!message) return false;
    if (message->contains("id")) continue;
    events_.push_back(std::move(*message));
    if (events_.back().value("method", "") == method) return true;
  }
}

std::string CdpBrowser::AttachToPage() {
  // The page about:blank opened may take a moment to be listed.
  for (int attempt = 0; attempt < 50; ++attempt) {
    auto targets = Call("Target.getTargets");
    if (!targets) return "";
    for (const auto& t : (*targets)["targetInfos"]) {
      if (t.value("type", "") != "page") continue;
      auto attached = Call("Target.attachToTarget", {{"targetId", t["targetId"]}, {"flatten", true}});
      return attached ? attached->value("sessionId", "") : "";
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  error_ = "no page target";
  return "";
}

std::vector<std::string> PageProblems(const std::vector<nlohmann::json>& events,
                                      const std::function<bool(const std::string& url)>& request_allowed,
                                      const std::function<bool(const nlohmann::json& entry)>& log_expected) {
  std::vector<std::string> problems;
  for (const auto& e : events) {
    const std::string method = e.value("method", "");
    const nlohmann::json& p = e.contains("params") ? e["params"] : nlohmann::json::object();
    if (method == "Network.requestWillBeSent") {
      const std::string url = p["request"].value("url", "");
      if (!request_allowed(url)) problems.push_back("request: " + url);
    } else if (method == "Runtime.exceptionThrown") {
      problems.push_back("exception: " + p.dump());
    } else if (method == "Runtime.consoleAPICalled" && (p.value("type", "") == "error" || p.value("type", "") == "warning")) {
      problems.push_back("console: " + p.dump());
    } else if (method == "Log.entryAdded" && p["entry"].value("level", "") == "error" && !(log_expected && log_expected(p["entry"]))) {
      problems.push_back("log: " + p.dump());
    }
  }
  return problems;
}

std::string JoinLines(const std::vector<std::string>& lines) {
  std::string all;
  for (const auto& s : lines) all += s + "\n";
  return all;
}

}  // namespace iofleet::testing
