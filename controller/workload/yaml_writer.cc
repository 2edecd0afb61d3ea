#include "controller/workload/yaml_writer.h"

#include <google/protobuf/descriptor.h>
#include <yaml-cpp/yaml.h>

#include <map>

#include "controller/workload/proto_names.h"
#include "core/base/units.h"
#include "iofleet/v1/workload.pb.h"

namespace iofleet::controller {
namespace {

namespace pb = google::protobuf;

std::string ScalarText(const pb::Message& m, const pb::FieldDescriptor* f, int index) {
  const pb::Reflection* r = m.GetReflection();
  const bool rep = f->is_repeated();
  v1::Unit unit = f->options().GetExtension(v1::unit);
  auto number = [&](uint64_t v) {
    if (unit == v1::UNIT_SIZE) return FormatSize(v);
    if (unit == v1::UNIT_DURATION) return FormatDuration(v);
    return std::to_string(v);
  };
  switch (f->cpp_type()) {
    case pb::FieldDescriptor::CPPTYPE_BOOL:
      return (rep ? r->GetRepeatedBool(m, f, index) : r->GetBool(m, f)) ? "true" : "false";
    case pb::FieldDescriptor::CPPTYPE_UINT32:
      return number(rep ? r->GetRepeatedUInt32(m, f, index) : r->GetUInt32(m, f));
    case pb::FieldDescriptor::CPPTYPE_UINT64:
      return number(rep ? r->GetRepeatedUInt64(m, f, index) : r->GetUInt64(m, f));
    case pb::FieldDescriptor::CPPTYPE_STRING:
      return rep ? r->GetRepeatedString(m, f, index) : r->GetString(m, f);
    case pb::FieldDescriptor::CPPTYPE_ENUM:
      return EnumValueToYaml(rep ? r->GetRepeatedEnum(m, f, index) : r->GetEnum(m, f));
    default:
      return "";
  }
}

void Emit(YAML::Emitter& out, const pb::Message& m) {
  const pb::Reflection* r = m.GetReflection();
  std::vector<const pb::FieldDescriptor*> fields;
  r->ListFields(m, &fields);  // set fields only, in field-number order
  out << YAML::BeginMap;
  for (const auto* f : fields) {
    if (IsParsedField(f)) continue;  // the loader makes it again from the field it came from
    out << YAML::Key << f->name() << YAML::Value;
    if (f->is_map()) {
      // map<string, string> of YAML texts (sweep, overrides' set): written back as YAML, sorted.
      std::map<std::string, std::string> entries;
      for (int i = 0; i < r->FieldSize(m, f); ++i) {
        const pb::Message& entry = r->GetRepeatedMessage(m, f, i);
        const pb::Descriptor* d = entry.GetDescriptor();
        entries[entry.GetReflection()->GetString(entry, d->map_key())] =
            entry.GetReflection()->GetString(entry, d->map_value());
      }
      out << YAML::BeginMap;
      for (const auto& [key, text] : entries) {
        out << YAML::Key << key << YAML::Value;
        YAML::Node node;
        try {
          node = YAML::Load(text);
        } catch (const YAML::Exception&) {
          node = YAML::Node(text);
        }
        if (node.IsScalar() || node.IsNull()) out << text;
        else out << YAML::Flow << node;
      }
      out << YAML::EndMap;
    } else if (f->is_repeated()) {
      out << YAML::BeginSeq;
      for (int i = 0; i < r->FieldSize(m, f); ++i) {
        if (f->cpp_type() == pb::FieldDescriptor::CPPTYPE_MESSAGE) {
          Emit(out, r->GetRepeatedMessage(m, f, i));
        } else {
          out << ScalarText(m, f, i);
        }
      }
      out << YAML::EndSeq;
    } else if (f->cpp_type() == pb::FieldDescriptor::CPPTYPE_MESSAGE) {
      Emit(out, r->GetMessage(m, f));
    } else if (f->cpp_type() == pb::FieldDescriptor::CPPTYPE_STRING) {
      out << YAML::DoubleQuoted << ScalarText(m, f, 0);
    } else {
      out << ScalarText(m, f, 0);
    }
  }
  out << YAML::EndMap;
}

}  // namespace

std::string ToYaml(const pb::Message& message) {
  YAML::Emitter out;
  Emit(out, message);
  return std::string(out.c_str()) + "\n";
}

}  // namespace iofleet::controller
