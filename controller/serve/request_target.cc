#include "controller/serve/request_target.h"

#include <string_view>

namespace iofleet::controller {
namespace {

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

bool HasControlCharacter(std::string_view text) {
  for (unsigned char c : text) {
    if (c < 0x20 || c == 0x7f) return true;
  }
  return false;
}

// Every "/"-separated segment of an absolute path: "" (only the last one, a trailing slash),
// or a name that is neither "." nor contains "..".
Status CheckDecodedPath(std::string_view path) {
  if (HasControlCharacter(path)) return InvalidArgument("the path holds a control character");
  if (path.find('\\') != std::string_view::npos) return InvalidArgument("the path holds a backslash");
  if (path.find("..") != std::string_view::npos) return InvalidArgument("the path holds \"..\"");
  if (path.find("//") != std::string_view::npos) return InvalidArgument("the path holds \"//\"");
  if (path.find("/./") != std::string_view::npos || path.ends_with("/.")) {
    return InvalidArgument("the path holds a \".\" segment");
  }
  return Status::Ok();
}

Status ParseQuery(std::string_view query, std::map<std::string, std::string>& out) {
  while (!query.empty()) {
    size_t end = query.find('&');
    std::string_view pair = query.substr(0, end);
    query = end == std::string_view::npos ? std::string_view() : query.substr(end + 1);
    if (pair.empty()) continue;  // "a=1&&b=2"
    size_t equals = pair.find('=');
    auto name = PercentDecode(std::string(pair.substr(0, equals)), true);
    if (!name.ok()) return name.status();
    std::string value;
    if (equals != std::string_view::npos) {
      auto decoded = PercentDecode(std::string(pair.substr(equals + 1)), true);
      if (!decoded.ok()) return decoded.status();
      value = std::move(decoded).value();
    }
    if (name->empty()) return InvalidArgument("a query parameter has no name");
    if (HasControlCharacter(*name) || HasControlCharacter(value)) {
      return InvalidArgument("query parameter \"" + *name + "\" holds a control character");
    }
    // Two values for one name would leave it to each handler which one counts.
    if (!out.emplace(*name, std::move(value)).second) {
      return InvalidArgument("query parameter \"" + *name + "\" given twice");
    }
  }
  return Status::Ok();
}

}  // namespace

Result<std::string> PercentDecode(const std::string& text, bool plus_is_space) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '%') {
      if (i + 2 >= text.size()) return InvalidArgument("truncated percent escape \"" + text.substr(i) + "\"");
      int hi = HexValue(text[i + 1]);
      int lo = HexValue(text[i + 2]);
      if (hi < 0 || lo < 0) return InvalidArgument("bad percent escape \"" + text.substr(i, 3) + "\"");
      out.push_back(static_cast<char>(hi * 16 + lo));
      i += 2;
    } else if (c == '+' && plus_is_space) {
      out.push_back(' ');
    } else {
      out.push_back(c);
    }
  }
  return out;
}

Result<RequestTarget> ParseRequestTarget(const std::string& raw_target) {
  if (raw_target.empty() || raw_target[0] != '/') return InvalidArgument("the target does not start with \"/\"");
  size_t question = raw_target.find('?');
  std::string raw_path = raw_target.substr(0, question);
  // An encoded separator would let a name reach a handler as one segment and a file system as two.
  for (size_t i = 0; i + 2 < raw_path.size(); ++i) {
    if (raw_path[i] == '%' && raw_path[i + 1] == '2' && (raw_path[i + 2] == 'f' || raw_path[i + 2] == 'F')) {
      return InvalidArgument("the path holds an encoded \"/\" (%2f)");
    }
  }
  RequestTarget target;
  auto path = PercentDecode(raw_path, false);
  if (!path.ok()) return path.status();
  IOFLEET_RETURN_IF_ERROR(CheckDecodedPath(*path));
  target.path = std::move(path).value();
  if (question != std::string::npos) {
    IOFLEET_RETURN_IF_ERROR(ParseQuery(std::string_view(raw_target).substr(question + 1), target.query));
  }
  return target;
}

}  // namespace iofleet::controller
