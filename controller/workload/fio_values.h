// fio's value grammar: its sizes and its times, read as fio reads them, whatever option they
// belong to (fio_options.h says which option takes which).
#pragma once

#include <cstdint>
#include <string>

#include "core/base/status.h"

namespace iofleet::controller {

// fio's sizes: an integer (or 0x hex) with an optional unit. With kb_base=1024, fio's default,
// k/m/g/t/p (with an optional b) are powers of 2 and the IEC forms ki/kib/mi/... are powers of
// 10, the reverse of the standards, kept by fio for old scripts; kb_base=1000 swaps them back.
// `iec` tells the caller an IEC form was used. "1.5k" is fine when it is a whole number of bytes.
Result<uint64_t> ParseFioSize(const std::string& text, int kb_base, bool& iec);

// fio's times: an integer, in seconds unless a unit says otherwise (us, ms, s, m, h, d; fio
// reads them case-insensitively, so "m" is minutes). Nanoseconds.
Result<uint64_t> ParseFioTime(const std::string& text);

// fio reads option values case-insensitively.
std::string LowerFio(std::string s);

}  // namespace iofleet::controller
