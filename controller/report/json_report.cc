// report.json: the run's typed document (controller/report/report_proto.h) in iofleet's JSON form
// (core/wire/proto_json.h), the schema's fields in order, two spaces of indent.
#include "controller/report/report_proto.h"
#include "controller/report/report_writers.h"
#include "core/wire/proto_json.h"

namespace iofleet::controller {

std::string ReportJson(const RunReport& report) { return wire::ToJson(ToReportProto(report)).dump(2) + "\n"; }

}  // namespace iofleet::controller
