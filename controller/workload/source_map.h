// Where each workload path was written: "steps[1].io.block_size" -> file:line:col.
#pragma once

#include <map>
#include <string>

namespace iofleet::controller {

struct SourcePosition {
  int line = 0;    // 1-based
  int column = 0;  // 1-based
};

class SourceMap {
 public:
  explicit SourceMap(std::string file = {}) : file_(std::move(file)) {}

  void Set(const std::string& path, SourcePosition position) { positions_[path] = position; }
  const std::string& file() const { return file_; }

  // "file:line:col: path: message", using the nearest enclosing path that has a position.
  std::string Format(const std::string& path, const std::string& message) const {
    std::string probe = path;
    while (true) {
      auto it = positions_.find(probe);
      if (it != positions_.end()) {
        return file_ + ":" + std::to_string(it->second.line) + ":" + std::to_string(it->second.column) +
               ": " + path + ": " + message;
      }
      size_t cut = probe.find_last_of(".[");
      if (cut == std::string::npos || cut == 0) break;
      probe = probe.substr(0, cut);
    }
    return file_ + ": " + path + ": " + message;
  }

 private:
  std::string file_;
  std::map<std::string, SourcePosition> positions_;
};

}  // namespace iofleet::controller
