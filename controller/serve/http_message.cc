#include "controller/serve/http_message.h"

#include <nlohmann/json.hpp>

namespace iofleet::controller {

HttpResponse HttpResponse::Json(int status, std::string body) {
  HttpResponse response;
  response.status = status;
  response.body = std::move(body);
  return response;
}

HttpResponse HttpResponse::Error(int status, const std::string& reason) {
  // replace: a reason quoting a client's bytes that are not UTF-8 must not throw.
  return Json(status, nlohmann::json{{"error", reason}}.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
}

}  // namespace iofleet::controller
