// A small Chrome DevTools Protocol client over --remote-debugging-pipe, for tests that open a page
// in headless Chromium (report.html): the browser reads commands on its fd 3 and writes replies and
// events on its fd 4, each message JSON ended by a NUL byte. No npm, no websocket.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <filesystem>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace iofleet::testing {

class CdpBrowser {
 public:
  // Starts `chromium` headless (no sandbox, as root; no requests of its own) with a fresh profile
  // in `profile_dir`; its stderr goes to `profile_dir`/stderr. Check ok() after.
  CdpBrowser(const std::string& chromium, const std::filesystem::path& profile_dir);
  ~CdpBrowser();  // closes the browser, killing it if it does not go

  bool ok() const { return pid_ > 0 && to_ >= 0 && from_ >= 0; }
  const std::string& error() const { return error_; }

  // Sends `method` (to the page session `session`, or the browser when empty) and waits for its
  // reply: the "result", or nullopt with error() set (an "error" reply, a timeout, a closed pipe).
  // Events that arrive meanwhile are kept in events().
  std::optional<nlohmann::json> Call(const std::string& method, const nlohmann::json& params = nlohmann::json::object(),
                                     const std::string& session = "", std::chrono::milliseconds timeout = std::chrono::seconds(10));
  // Waits for an event named `method`; true when it came (it stays in events()).
  bool WaitForEvent(const std::string& method, std::chrono::milliseconds timeout);
  // Attaches to the first page target; returns its session id ("" on failure).
  std::string AttachToPage();

  const std::vector<nlohmann::json>& events() const { return events_; }

 private:
  // Reads until one message is complete or the deadline passes.
  std::optional<nlohmann::json> Next(std::chrono::steady_clock::time_point deadline);

  pid_t pid_ = -1;
  int to_ = -1;    // our end of the browser's fd 3
  int from_ = -1;  // our end of the browser's fd 4
  int next_id_ = 1;
  std::string buffer_;
  std::string error_;
  std::vector<nlohmann::json> events_;
};

// What a page did wrong, from the events of a browser with Runtime, Log and Network enabled: a
// request whose URL `request_allowed` refuses, an exception, a console error or warning, a logged
// error (unless `log_expected` accepts its entry). One line each; empty when none.
std::vector<std::string> PageProblems(const std::vector<nlohmann::json>& events,
                                      const std::function<bool(const std::string& url)>& request_allowed,
                                      const std::function<bool(const nlohmann::json& entry)>& log_expected = nullptr);
// The lines of PageProblems as one text, for a test's failure message.
std::string JoinLines(const std::vector<std::string>& lines);

}  // namespace iofleet::testing
