// The request target of an HTTP request, checked and decoded before any handler sees it: the
// handlers map paths to report files, so a path that could climb or hide a separator is refused
// here, once, for every route.
#pragma once

#include <map>
#include <string>

#include "core/base/status.h"

namespace iofleet::controller {

struct RequestTarget {
  std::string path;                           // percent-decoded once
  std::map<std::string, std::string> query;   // names and values percent-decoded, '+' as a space
};

// Decodes %XX escapes once; a truncated or non-hex escape is an error.
Result<std::string> PercentDecode(const std::string& text, bool plus_is_space);

// Parses an origin-form target ("/path?query"). Refused (InvalidArgument, with the reason): a
// target not starting with '/', a bad escape, an encoded '/' (%2f), and a decoded path holding
// "..", "//", a "." segment, a backslash, NUL or another control character; a query name given
// twice or holding a control character.
Result<RequestTarget> ParseRequestTarget(const std::string& raw_target);

}  // namespace iofleet::controller
