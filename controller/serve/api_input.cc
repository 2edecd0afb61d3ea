#include "controller/serve/api_input.h"

#include <nlohmann/json.hpp>
#include <set>

namespace iofleet::controller {

Result<size_t> LastParameter(const HttpRequest& r) {
  auto it = r.query.find("last");
  if (it == r.query.end()) return kDefaultLast;
  const std::string& text = it->second;
  if (text.empty() || text.size() > 4 || text.find_first_not_of("0123456789") != std::string::npos) {
    return InvalidArgument("last=" + text + ": expected a count 1.." + std::to_string(kMaxLast));
  }
  size_t n = std::stoul(text);
  if (n < 1 || n > kMaxLast) return InvalidArgument("last=" + text + ": expected a count 1.." + std::to_string(kMaxLast));
  return n;
}

Status CheckPostBody(const HttpRequest& r, const std::string& suite) {
  using Json = nlohmann::ordered_json;
  if (r.body.find_first_not_of(" \t\r\n") == std::string::npos) return Status();
  const std::string type = r.content_type.substr(0, r.content_type.find(';'));
  if (type != "application/json") return InvalidArgument("a request body must be JSON (Content-Type: application/json)");
  // The top-level field being parsed, to name in an error, and each seen once: JSON lets a
  // key repeat and nlohmann keeps the last, so {"suite": "x", "suite": "NAME"} would pass as
  // NAME while another reader saw x.
  std::string field;
  std::string repeated;
  std::set<std::string> fields;
  Json::parser_callback_t note = [&](int depth, Json::parse_event_t event, Json& parsed) {
    if (event == Json::parse_event_t::key && depth == 1) {
      field = parsed.get<std::string>();
      if (!fields.insert(field).second && repeated.empty()) repeated = field;
    }
    return true;
  };
  Json body;
  // Not only parse_error: a number beyond a double is out_of_range, and whatever else the
  // parser throws is the body's fault too, never a 500.
  try {
    body = Json::parse(r.body, note);
  } catch (const std::exception& e) {
    return InvalidArgument((field.empty() ? std::string() : "field \"" + field + "\": ") + "bad JSON: " + e.what());
  }
  if (!body.is_object()) return InvalidArgument("the body must be a JSON object");
  if (!repeated.empty()) return InvalidArgument("field \"" + repeated + "\" given twice");
  for (const auto& [key, value] : body.items()) {
    if (key != "suite" || suite.empty()) {
      return InvalidArgument("unknown field \"" + key + "\": a POST names " + (suite.empty() ? "nothing" : "its suite") +
                             " and nothing else (no set, no workload)");
    }
    if (!value.is_string() || value.get<std::string>() != suite) {
      return InvalidArgument("\"suite\" must be \"" + suite + "\", the suite in the path");
    }
  }
  return Status();
}

}  // namespace iofleet::controller
