// iofleet-field-reference DESCRIPTOR_SET: prints docs/workloads.md's field reference, generated
// from the .proto comments (the build makes the descriptor set: build/proto/workload.desc).
// iofleet-field-reference --fio-options: prints its table of the fio options the import takes,
// generated from the import's option table (controller/workload/fio_options.cc).
#include <fstream>
#include <iostream>
#include <string>

#include "controller/workload/field_reference.h"
#include "controller/workload/fio_import.h"
#include "core/base/exit_code.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: iofleet-field-reference DESCRIPTOR_SET | --fio-options\n";
    return iofleet::kExitRejected;
  }
  if (std::string(argv[1]) == "--fio-options") {
    std::cout << iofleet::controller::FioOptionReference();
    return iofleet::kExitOk;
  }
  std::ifstream in(argv[1], std::ios::binary);
  google::protobuf::FileDescriptorSet set;
  if (!in || !set.ParseFromIstream(&in)) {
    std::cerr << "iofleet-field-reference: " << argv[1] << ": not a FileDescriptorSet\n";
    return iofleet::kExitRejected;
  }
  const std::string reference = iofleet::controller::FieldReference(set);
  if (reference.empty()) {
    std::cerr << "iofleet-field-reference: " << argv[1] << " holds no iofleet.v1.Workload\n";
    return iofleet::kExitRejected;
  }
  std::cout << reference;
  return iofleet::kExitOk;
}
