#include "agent/host/nfs_mountstats.h"

#include <vector>

#include "agent/host/host_stats.h"

namespace iofleet::agent {
namespace {
namespace mountstats {  // unity builds merge anonymous namespaces: these names are this file's

std::vector<std::string_view> Fields(std::string_view line) { return KernelFields(line); }

bool Count(std::string_view word, uint64_t& out) { return KernelNumber(word, out); }

// Reads fields[from..] into `into` in order; false unless all of them are numbers.
bool Counts(const std::vector<std::string_view>& fields, size_t from, std::initializer_list<uint64_t*> into) {
  if (fields.size() < from + into.size()) return false;
  size_t i = from;
  for (uint64_t* out : into) {
    if (!Count(fields[i++], *out)) return false;
  }
  return true;
}

bool IsNfs(std::string_view fstype) { return fstype == "nfs" || fstype == "nfs4"; }

// The kernel's escapes in mount points (seq_path: space, tab, newline and backslash as \ooo).
std::string Unescaped(std::string_view escaped) {
  std::string out;
  for (size_t i = 0; i < escaped.size(); ++i) {
    if (escaped[i] == '\\' && i + 3 < escaped.size()) {
      const std::string_view oct = escaped.substr(i + 1, 3);
      if (oct.find_first_not_of("01234567") == std::string_view::npos) {
        out += static_cast<char>((oct[0] - '0') * 64 + (oct[1] - '0') * 8 + (oct[2] - '0'));
        i += 3;
        continue;
      }
    }
    out += escaped[i];
  }
  return out;
}

bool UnderMount(std::string_view path, const std::string& mount) {
  if (mount == "/") return !path.empty() && path[0] == '/';
  return path.substr(0, mount.size()) == mount && (path.size() == mount.size() || path[mount.size()] == '/');
}

void ReadOp(const std::vector<std::string_view>& f, NfsOpCounters& op, bool& has) {
  // ops transmissions major_timeouts bytes_sent bytes_received queue rtt execute [errors]
  has = Counts(f, 1, {&op.ops, &op.transmissions, &op.major_timeouts, &op.bytes_sent, &op.bytes_received, &op.queue_ms, &op.rtt_ms,
                      &op.execute_ms});
  if (!has) op = {};
}

}  // namespace mountstats
}  // namespace

std::optional<NfsCounters> ParseNfsMountstats(std::string_view text, std::string_view mount_point) {
  using namespace mountstats;
  std::optional<NfsCounters> out;
  bool in_entry = false, in_per_op = false;
  size_t at = 0;
  while (at < text.size()) {
    size_t end = text.find('\n', at);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = text.substr(at, end - at);
    at = end + 1;
    const std::vector<std::string_view> f = Fields(line);
    if (f.empty()) continue;
    // "device SERVER:/EXPORT mounted on MOUNT with fstype nfs4 statvers=1.1"
    if (f[0] == "device") {
      if (out) break;  // the entry ended
      in_entry = f.size() >= 8 && f[2] == "mounted" && f[3] == "on" && f[4] == mount_point && f[5] == "with" && f[6] == "fstype" &&
                 IsNfs(f[7]);
      in_per_op = false;
      if (in_entry) {
        out.emplace();
        out->server = std::string(f[1]);
      }
      continue;
    }
    if (!in_entry) continue;
    if (f[0] == "opts:" && f.size() >= 2) {
      size_t from = 0;
      const std::string_view opts = f[1];
      while (from <= opts.size()) {
        size_t comma = opts.find(',', from);
        if (comma == std::string_view::npos) comma = opts.size();
        const std::string_view opt = opts.substr(from, comma - from);
        if (opt.substr(0, 5) == "vers=" && opt.size() <= 5 + 8) out->version = std::string(opt.substr(5));
        from = comma + 1;
      }
    } else if (f[0] == "bytes:") {
      NfsCounters b;
      b.has_bytes = Counts(f, 1, {&b.normal_read_bytes, &b.normal_write_bytes, &b.direct_read_bytes, &b.direct_write_bytes,
                                  &b.server_read_bytes, &b.server_write_bytes});
      if (b.has_bytes) {
        out->normal_read_bytes = b.normal_read_bytes, out->normal_write_bytes = b.normal_write_bytes;
        out->direct_read_bytes = b.direct_read_bytes, out->direct_write_bytes = b.direct_write_bytes;
        out->server_read_bytes = b.server_read_bytes, out->server_write_bytes = b.server_write_bytes;
        out->has_bytes = true;
      }
    } else if (f[0] == "per-op" && f.size() >= 2 && f[1] == "statistics") {
      in_per_op = true;
    } else if (in_per_op && f[0] == "READ:") {
      ReadOp(f, out->read, out->has_read);
    } else if (in_per_op && f[0] == "WRITE:") {
      ReadOp(f, out->write, out->has_write);
    } else if (in_per_op && f[0] == "COMMIT:") {
      ReadOp(f, out->commit, out->has_commit);
    }
  }
  return out;
}

std::string NfsMountPoint(std::string_view mountinfo, uint32_t major, uint32_t minor, std::string_view real_path) {
  using namespace mountstats;
  const std::string device = std::to_string(major) + ":" + std::to_string(minor);
  std::string best, best_unescaped;
  size_t at = 0;
  while (at < mountinfo.size()) {
    size_t end = mountinfo.find('\n', at);
    if (end == std::string_view::npos) end = mountinfo.size();
    const std::vector<std::string_view> f = Fields(mountinfo.substr(at, end - at));
    at = end + 1;
    // "ID PARENT MAJOR:MINOR ROOT MOUNT_POINT OPTIONS [OPTIONAL...] - FSTYPE SOURCE SUPER_OPTIONS"
    if (f.size() < 8 || f[2] != device) continue;
    size_t dash = 6;
    while (dash < f.size() && f[dash] != "-") ++dash;
    if (dash + 1 >= f.size() || !IsNfs(f[dash + 1])) continue;
    const std::string mount = Unescaped(f[4]);
    if (UnderMount(real_path, mount) && mount.size() >= best_unescaped.size()) {
      best = std::string(f[4]);
      best_unescaped = mount;
    }
  }
  return best;
}

std::optional<NfsCounters> ReadNfsCounters(const std::string& mount_point) {
  if (mount_point.empty()) return std::nullopt;
  return ParseNfsMountstats(ReadKernelText("/proc/self/mountstats"), mount_point);
}

}  // namespace iofleet::agent
