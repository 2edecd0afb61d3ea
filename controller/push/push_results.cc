#include "controller/push/push_results.h"

#include "controller/push/http_put.h"
#include "controller/push/push_body.h"

namespace iofleet::controller {

Status PushResults(const PushgatewayUrl& url, const RunReport& report, double run_seconds, double ended_at_unix_s,
                   const v1::ReportVerdicts* verdicts, std::chrono::milliseconds timeout) {
  const std::string target = url.prefix + GroupingPath(report.workload, report.labels);
  Status s = HttpPut(url.host, url.port, target, PushBody(report, run_seconds, ended_at_unix_s, verdicts),
                     "text/plain; version=0.0.4; charset=utf-8", timeout);
  if (!s.ok()) return Unavailable("push to " + url.text + target + " failed: " + s.message());
  return s;
}

}  // namespace iofleet::controller
