#include "controller/workload/field_reference.h"

#include <fmt/format.h>
#include <google/protobuf/descriptor.h>

#include <set>
#include <vector>

#include "controller/workload/proto_names.h"
#include "iofleet/v1/workload.pb.h"

namespace iofleet::controller {
namespace {

using google::protobuf::Descriptor;
using google::protobuf::EnumDescriptor;
using google::protobuf::FieldDescriptor;
using google::protobuf::SourceLocation;

// A comment as one line of Markdown: leading and trailing comments joined, `|` escaped.
template <typename T>
std::string Comment(const T* d) {
  SourceLocation where;
  if (!d->GetSourceLocation(&where)) return "";
  std::string text = where.leading_comments + " " + where.trailing_comments;
  std::string out;
  bool space = false;
  for (char c : text) {
    if (c == '\n' || c == ' ' || c == '\t') {
      space = !out.empty();
      continue;
    }
    if (space) out += ' ';
    space = false;
    out += c == '|' ? std::string("\\|") : std::string(1, c);
  }
  return out;
}

std::string TypeOf(const FieldDescriptor* f) {
  std::string type;
  if (f->is_map()) {
    return "map of " + std::string(f->message_type()->map_key()->type_name()) + " to " +
           std::string(f->message_type()->map_value()->type_name());
  }
  if (f->message_type()) type = "[" + f->message_type()->name() + "](#" + f->message_type()->name() + ")";
  else if (f->enum_type()) type = EnumChoices(f->enum_type());
  else type = f->type_name();
  return f->is_repeated() ? "list of " + type : type;
}

std::string Constraints(const FieldDescriptor* f) {
  const auto& o = f->options();
  std::vector<std::string> parts;
  switch (o.GetExtension(v1::unit)) {
    case v1::UNIT_SIZE: parts.push_back("size (KiB, MiB, ...)"); break;
    case v1::UNIT_DURATION: parts.push_back("duration (ms, s, m, ...)"); break;
    default: break;
  }
  if (o.HasExtension(v1::min)) parts.push_back(fmt::format("min {}", o.GetExtension(v1::min)));
  if (o.HasExtension(v1::max)) parts.push_back(fmt::format("max {}", o.GetExtension(v1::max)));
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : ", ") + p;
  return out;
}

// Workload, then every message it reaches, in the order first met.
void Reach(const Descriptor* d, std::vector<const Descriptor*>& order, std::set<const Descriptor*>& seen) {
  if (!seen.insert(d).second) return;
  order.push_back(d);
  for (int i = 0; i < d->field_count(); ++i) {
    const FieldDescriptor* f = d->field(i);
    if (f->message_type() && !f->is_map() && !IsParsedField(f)) Reach(f->message_type(), order, seen);
  }
}

}  // namespace

std::string FieldReference(const google::protobuf::FileDescriptorSet& descriptors) {
  google::protobuf::DescriptorPool pool;
  for (const auto& file : descriptors.file()) pool.BuildFile(file);
  const Descriptor* workload = pool.FindMessageTypeByName("iofleet.v1.Workload");
  if (!workload) return "";
  std::vector<const Descriptor*> order;
  std::set<const Descriptor*> seen;
  Reach(workload, order, seen);
  std::string out =
      "Generated from proto/iofleet/v1/workload.proto by `iofleet-field-reference` (tools/); a test fails when this\n"
      "section and the .proto disagree. Fields are written in YAML as named here; sizes and durations take units;\n"
      "an enum is written as one of its listed values.\n";
  for (const Descriptor* d : order) {
    out += fmt::format("\n### {}\n\n", d->name());
    if (std::string c = Comment(d); !c.empty()) out += c + "\n\n";
    out += "| field | type | unit, bounds | meaning |\n|---|---|---|---|\n";
    for (int i = 0; i < d->field_count(); ++i) {
      const FieldDescriptor* f = d->field(i);
      if (IsParsedField(f)) continue;  // no YAML key
      const std::string oneof = f->real_containing_oneof() ? " (one of " + f->real_containing_oneof()->name() + ")" : "";
      out += fmt::format("| `{}` | {} | {} | {}{} |\n", f->name(), TypeOf(f), Constraints(f), Comment(f), oneof);
    }
  }
  // The enums the fields use, with each value's comment.
  std::set<const EnumDescriptor*> enums_seen;
  std::string enums;
  for (const Descriptor* d : order) {
    for (int i = 0; i < d->field_count(); ++i) {
      const EnumDescriptor* e = d->field(i)->enum_type();
      if (!e || !enums_seen.insert(e).second) continue;
      enums += fmt::format("\n### {}\n\n| value | meaning |\n|---|---|\n", e->name());
      for (int v = 1; v < e->value_count(); ++v) {  // 0 is UNSPECIFIED: never written
        enums += fmt::format("| `{}` | {} |\n", EnumValueToYaml(e->value(v)), Comment(e->value(v)));
      }
    }
  }
  return out + enums;
}

}  // namespace iofleet::controller
