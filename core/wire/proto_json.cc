#include "core/wire/proto_json.h"

#include <google/protobuf/descriptor.h>
#include <google/protobuf/reflection.h>

#include <cmath>
#include <limits>
#include <set>

#include "iofleet/v1/json.pb.h"

namespace iofleet::wire {
namespace {

using google::protobuf::Descriptor;
using google::protobuf::EnumValueDescriptor;
using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using google::protobuf::Reflection;
using Json = nlohmann::ordered_json;

v1::JsonField OptionsOf(const FieldDescriptor* f) { return f->options().GetExtension(v1::json); }

std::string EnumText(const EnumValueDescriptor* value) { return EnumTextOf(value); }

// One scalar or message value of `f`: the element `index` of a repeated field, else the field.
Json Value(const Message& m, const FieldDescriptor* f, int index) {
  const Reflection* r = m.GetReflection();
  const bool rep = index >= 0;
  switch (f->cpp_type()) {
    case FieldDescriptor::CPPTYPE_INT32: return rep ? r->GetRepeatedInt32(m, f, index) : r->GetInt32(m, f);
    case FieldDescriptor::CPPTYPE_INT64: return rep ? r->GetRepeatedInt64(m, f, index) : r->GetInt64(m, f);
    case FieldDescriptor::CPPTYPE_UINT32: return rep ? r->GetRepeatedUInt32(m, f, index) : r->GetUInt32(m, f);
    case FieldDescriptor::CPPTYPE_UINT64: return rep ? r->GetRepeatedUInt64(m, f, index) : r->GetUInt64(m, f);
    case FieldDescriptor::CPPTYPE_DOUBLE: return rep ? r->GetRepeatedDouble(m, f, index) : r->GetDouble(m, f);
    case FieldDescriptor::CPPTYPE_FLOAT:
      return static_cast<double>(rep ? r->GetRepeatedFloat(m, f, index) : r->GetFloat(m, f));
    case FieldDescriptor::CPPTYPE_BOOL: return rep ? r->GetRepeatedBool(m, f, index) : r->GetBool(m, f);
    case FieldDescriptor::CPPTYPE_STRING: return rep ? r->GetRepeatedString(m, f, index) : r->GetString(m, f);
    case FieldDescriptor::CPPTYPE_ENUM: return EnumText(rep ? r->GetRepeatedEnum(m, f, index) : r->GetEnum(m, f));
    case FieldDescriptor::CPPTYPE_MESSAGE: return ToJson(rep ? r->GetRepeatedMessage(m, f, index) : r->GetMessage(m, f));
  }
  return nullptr;
}

// PAIR: a message of two scalars as [first, second].
Json Pair(const Message& m) {
  const Descriptor* d = m.GetDescriptor();
  return Json::array({Value(m, d->field(0), -1), Value(m, d->field(1), -1)});
}

// OBJECT: an entry's value is its first field after `key` that is present (a oneof's set member).
void AddEntry(const Message& entry, Json& object) {
  const Descriptor* d = entry.GetDescriptor();
  const Reflection* r = entry.GetReflection();
  const std::string key = r->GetString(entry, d->FindFieldByName("key"));
  for (int i = 0; i < d->field_count(); ++i) {
    const FieldDescriptor* f = d->field(i);
    if (f->name() == "key" || (f->has_presence() && !r->HasField(entry, f))) continue;
    object[key] = Value(entry, f, -1);
    return;
  }
  object[key] = nullptr;
}

void WriteFields(const Message& m, Json& out) {
  const Descriptor* d = m.GetDescriptor();
  const Reflection* r = m.GetReflection();
  for (int i = 0; i < d->field_count(); ++i) {
    const FieldDescriptor* f = d->field(i);
    const v1::JsonField options = OptionsOf(f);
    if (f->is_repeated()) {
      const int n = r->FieldSize(m, f);
      if (n == 0 && options.omit_empty()) continue;
      Json& value = out[f->name()];
      if (options.form() == v1::JSON_FORM_OBJECT) {
        value = Json::object();
        for (int k = 0; k < n; ++k) AddEntry(r->GetRepeatedMessage(m, f, k), value);
      } else {
        value = Json::array();
        for (int k = 0; k < n; ++k) {
          value.push_back(options.form() == v1::JSON_FORM_PAIR ? Pair(r->GetRepeatedMessage(m, f, k)) : Value(m, f, k));
        }
      }
      continue;
    }
    if (f->has_presence() && !r->HasField(m, f)) continue;
    // An enum's 0 is its UNSPECIFIED, never a value: left out, as the reader takes no such text.
    if (f->cpp_type() == FieldDescriptor::CPPTYPE_ENUM && r->GetEnumValue(m, f) == 0) continue;
    switch (options.form()) {
      case v1::JSON_FORM_INLINE: WriteFields(r->GetMessage(m, f), out); break;
      case v1::JSON_FORM_PAIR: out[f->name()] = Pair(r->GetMessage(m, f)); break;
      case v1::JSON_FORM_LIST: {
        const Message& list = r->GetMessage(m, f);
        const FieldDescriptor* values = list.GetDescriptor()->field(0);
        Json array = Json::array();
        for (int k = 0; k < list.GetReflection()->FieldSize(list, values); ++k) array.push_back(Value(list, values, k));
        out[f->name()] = std::move(array);
        break;
      }
      default: out[f->name()] = Value(m, f, -1);
    }
  }
}

const char* TypeName(const Json& j) {
  if (j.is_null()) return "null";
  if (j.is_boolean()) return "a boolean";
  if (j.is_number_float()) return "a fraction";
  if (j.is_number()) return "an integer";
  if (j.is_string()) return "a string";
  if (j.is_array()) return "a list";
  return "an object";
}

Status Wrong(const std::string& path, const char* expected, const Json& got) {
  return InvalidArgument(path + ": expected " + expected + ", got " + TypeName(got));
}

// An integer in [lo, hi], or the error naming `path`.
Result<int64_t> SignedIn(const Json& j, const std::string& path, int64_t lo, int64_t hi) {
  if (!j.is_number_integer()) return Wrong(path, "an integer", j);
  if (j.is_number_unsigned() && j.get<uint64_t>() > static_cast<uint64_t>(hi)) {
    return InvalidArgument(path + ": " + j.dump() + " is out of range (at most " + std::to_string(hi) + ")");
  }
  const int64_t v = j.get<int64_t>();
  if (v < lo || v > hi) return InvalidArgument(path + ": " + j.dump() + " is out of range");
  return v;
}

Result<uint64_t> UnsignedIn(const Json& j, const std::string& path, uint64_t hi) {
  if (!j.is_number_integer()) return Wrong(path, "an integer", j);
  if (!j.is_number_unsigned() && j.get<int64_t>() < 0) return InvalidArgument(path + ": " + j.dump() + " is negative");
  const uint64_t v = j.get<uint64_t>();
  if (v > hi) return InvalidArgument(path + ": " + j.dump() + " is out of range (at most " + std::to_string(hi) + ")");
  return v;
}

Status ReadObject(const Json& j, Message& m, const std::string& path);

// `j` into the field `f` of `m` (appended when repeated). A null double is left absent: NaN and
// infinities are written as null.
Status ReadValue(const Json& j, Message& m, const FieldDescriptor* f, const std::string& path) {
  const Reflection* r = m.GetReflection();
  const bool rep = f->is_repeated();
  switch (f->cpp_type()) {
    case FieldDescriptor::CPPTYPE_INT32: {
      auto v = SignedIn(j, path, std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max());
      if (!v.ok()) return v.status();
      rep ? r->AddInt32(&m, f, static_cast<int32_t>(*v)) : r->SetInt32(&m, f, static_cast<int32_t>(*v));
      return Status::Ok();
    }
    case FieldDescriptor::CPPTYPE_INT64: {
      auto v = SignedIn(j, path, std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max());
      if (!v.ok()) return v.status();
      rep ? r->AddInt64(&m, f, *v) : r->SetInt64(&m, f, *v);
      return Status::Ok();
    }
    case FieldDescriptor::CPPTYPE_UINT32: {
      auto v = UnsignedIn(j, path, std::numeric_limits<uint32_t>::max());
      if (!v.ok()) return v.status();
      rep ? r->AddUInt32(&m, f, static_cast<uint32_t>(*v)) : r->SetUInt32(&m, f, static_cast<uint32_t>(*v));
      return Status::Ok();
    }
    case FieldDescriptor::CPPTYPE_UINT64: {
      auto v = UnsignedIn(j, path, std::numeric_limits<uint64_t>::max());
      if (!v.ok()) return v.status();
      rep ? r->AddUInt64(&m, f, *v) : r->SetUInt64(&m, f, *v);
      return Status::Ok();
    }
    case FieldDescriptor::CPPTYPE_DOUBLE:
    case FieldDescriptor::CPPTYPE_FLOAT: {
      if (j.is_null() && !rep) return Status::Ok();
      if (!j.is_number()) return Wrong(path, "a number", j);
      const double v = j.get<double>();
      if (f->cpp_type() == FieldDescriptor::CPPTYPE_FLOAT) {
        rep ? r->AddFloat(&m, f, static_cast<float>(v)) : r->SetFloat(&m, f, static_cast<float>(v));
      } else {
        rep ? r->AddDouble(&m, f, v) : r->SetDouble(&m, f, v);
      }
      return Status::Ok();
    }
    case FieldDescriptor::CPPTYPE_BOOL:
      if (!j.is_boolean()) return Wrong(path, "true or false", j);
      rep ? r->AddBool(&m, f, j.get<bool>()) : r->SetBool(&m, f, j.get<bool>());
      return Status::Ok();
    case FieldDescriptor::CPPTYPE_STRING:
      if (!j.is_string()) return Wrong(path, "a string", j);
      rep ? r->AddString(&m, f, j.get<std::string>()) : r->SetString(&m, f, j.get<std::string>());
      return Status::Ok();
    case FieldDescriptor::CPPTYPE_ENUM: {
      if (!j.is_string()) return Wrong(path, "a string", j);
      const auto* e = f->enum_type();
      std::string known;
      for (int i = 0; i < e->value_count(); ++i) {
        if (e->value(i)->number() == 0) continue;  // UNSPECIFIED: never written
        if (EnumText(e->value(i)) == j.get<std::string>()) {
          rep ? r->AddEnumValue(&m, f, e->value(i)->number()) : r->SetEnumValue(&m, f, e->value(i)->number());
          return Status::Ok();
        }
        known += (known.empty() ? "" : ", ") + EnumText(e->value(i));
      }
      return InvalidArgument(path + ": " + j.dump() + " is not one of " + known);
    }
    case FieldDescriptor::CPPTYPE_MESSAGE: {
      Message* sub = rep ? r->AddMessage(&m, f) : r->MutableMessage(&m, f);
      const v1::JsonForm form = OptionsOf(f).form();
      if (form == v1::JSON_FORM_PAIR) {
        if (!j.is_array() || j.size() != 2) return Wrong(path, "a pair [a, b]", j);
        const Descriptor* d = sub->GetDescriptor();
        if (Status s = ReadValue(j[0], *sub, d->field(0), path + "[0]"); !s.ok()) return s;
        return ReadValue(j[1], *sub, d->field(1), path + "[1]");
      }
      if (form == v1::JSON_FORM_LIST) {
        if (!j.is_array()) return Wrong(path, "a list", j);
        const FieldDescriptor* values = sub->GetDescriptor()->field(0);
        for (size_t i = 0; i < j.size(); ++i) {
          if (Status s = ReadValue(j[i], *sub, values, path + "[" + std::to_string(i) + "]"); !s.ok()) return s;
        }
        return Status::Ok();
      }
      return ReadObject(j, *sub, path);
    }
  }
  return InvalidArgument(path + ": a field of a type iofleet does not read");
}

// OBJECT: each key becomes an entry; its value goes to the first of the entry's other fields
// (a oneof's members in order) that takes a JSON value of that type.
Status ReadEntries(const Json& j, Message& m, const FieldDescriptor* f, const std::string& path) {
  if (!j.is_object()) return Wrong(path, "an object", j);
  const Reflection* r = m.GetReflection();
  for (const auto& [key, value] : j.items()) {
    Message* entry = r->AddMessage(&m, f);
    const Descriptor* d = entry->GetDescriptor();
    entry->GetReflection()->SetString(entry, d->FindFieldByName("key"), key);
    Status first = Status::Ok();
    bool read = false;
    for (int i = 0; i < d->field_count() && !read; ++i) {
      if (d->field(i)->name() == "key") continue;
      Status s = ReadValue(value, *entry, d->field(i), path + "." + key);
      read = s.ok();
      if (!read && first.ok()) first = s;
      if (!read) entry->GetReflection()->ClearField(entry, d->field(i));
    }
    if (!read) return first;
  }
  return Status::Ok();
}

// The fields of `m` from the keys of `j`, adding each key read to `claimed`. An INLINE field
// reads its keys from `j` itself, and is set only when one of them is there.
Status ReadFields(const Json& j, Message& m, const std::string& path, std::set<std::string>& claimed) {
  const Descriptor* d = m.GetDescriptor();
  const Reflection* r = m.GetReflection();
  for (int i = 0; i < d->field_count(); ++i) {
    const FieldDescriptor* f = d->field(i);
    const v1::JsonField options = OptionsOf(f);
    if (options.form() == v1::JSON_FORM_INLINE) {
      const size_t before = claimed.size();
      if (Status s = ReadFields(j, *r->MutableMessage(&m, f), path, claimed); !s.ok()) return s;
      if (claimed.size() == before) r->ClearField(&m, f);
      continue;
    }
    auto it = j.find(f->name());
    if (it == j.end()) continue;
    claimed.insert(f->name());
    const std::string where = path.empty() ? f->name() : path + "." + f->name();
    if (!f->is_repeated()) {
      if (Status s = ReadValue(*it, m, f, where); !s.ok()) return s;
      continue;
    }
    if (options.form() == v1::JSON_FORM_OBJECT) {
      if (Status s = ReadEntries(*it, m, f, where); !s.ok()) return s;
      continue;
    }
    if (!it->is_array()) return Wrong(where, "a list", *it);
    for (size_t k = 0; k < it->size(); ++k) {
      if (Status s = ReadValue((*it)[k], m, f, where + "[" + std::to_string(k) + "]"); !s.ok()) return s;
    }
  }
  return Status::Ok();
}

Status ReadObject(const Json& j, Message& m, const std::string& path) {
  if (!j.is_object()) return Wrong(path.empty() ? "the document" : path, "an object", j);
  std::set<std::string> claimed;
  if (Status s = ReadFields(j, m, path, claimed); !s.ok()) return s;
  for (const auto& [key, value] : j.items()) {
    if (!claimed.count(key)) {
      return InvalidArgument((path.empty() ? key : path + "." + key) + ": not a key of " + m.GetDescriptor()->name());
    }
  }
  return Status::Ok();
}

}  // namespace

std::optional<int> EnumNumberOfText(const google::protobuf::EnumDescriptor* type, const std::string& text) {
  if (text.empty()) return std::nullopt;
  for (int i = 0; i < type->value_count(); ++i) {
    if (EnumTextOf(type->value(i)) == text) return type->value(i)->number();
  }
  return std::nullopt;
}

std::string EnumTextOf(const EnumValueDescriptor* value) {
  if (!value || value->number() == 0) return "";  // UNSPECIFIED: what a document without the key reads as
  const std::string& text = value->options().GetExtension(v1::json_text);
  return text.empty() ? value->name() : text;
}

Json ToJson(const Message& message) {
  Json out = Json::object();
  WriteFields(message, out);
  return out;
}

Status FromJson(const Json& json, Message& message, const std::string& where) {
  message.Clear();
  Status s = ReadObject(json, message, "");
  if (s.ok()) return s;
  return InvalidArgument(where + ": " + s.message());
}

}  // namespace iofleet::wire
