#include "agent/host/host_info.h"

#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <climits>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <vector>

#include "agent/host/host_stats.h"

namespace iofleet::agent {
namespace {

std::string ReadText(const std::string& path) {
  std::string text = ReadKernelText(path);
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  return text;
}

// mountinfo escapes space, tab, newline and backslash as \ooo.
std::string Unescape(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 3 < s.size() && s[i + 1] >= '0' && s[i + 1] <= '3' && s[i + 2] >= '0' && s[i + 2] <= '7' && s[i + 3] >= '0' && s[i + 3] <= '7') {
      out += static_cast<char>((s[i + 1] - '0') * 64 + (s[i + 2] - '0') * 8 + (s[i + 3] - '0'));
      i += 3;
    } else {
      out += s[i];
    }
  }
  return out;
}

std::vector<std::string_view> Split(std::string_view s, char by) {
  std::vector<std::string_view> out;
  while (!s.empty()) {
    size_t at = s.find(by);
    std::string_view part = s.substr(0, at);
    if (!part.empty()) out.push_back(part);
    if (at == std::string_view::npos) break;
    s.remove_prefix(at + 1);
  }
  return out;
}

// "rw,relatime" + "rw,discard" -> "rw,relatime,discard".
std::string MergeOptions(std::string_view mount, std::string_view super) {
  std::vector<std::string_view> all = Split(mount, ',');
  for (std::string_view o : Split(super, ',')) {
    bool seen = false;
    for (std::string_view m : all) seen = seen || m == o;
    if (!seen) all.push_back(o);
  }
  std::string out;
  for (std::string_view o : all) out += (out.empty() ? "" : ",") + std::string(o);
  return out;
}

// A mountinfo line: ID PARENT MAJ:MIN ROOT MOUNT_POINT OPTIONS [OPTIONAL...] - TYPE SOURCE SUPER_OPTIONS
std::optional<MountEntry> ParseLine(std::string_view line) {
  std::vector<std::string_view> f = Split(line, ' ');
  if (f.size() < 10) return std::nullopt;
  size_t dash = 6;
  while (dash < f.size() && f[dash] != "-") ++dash;
  if (dash + 2 >= f.size()) return std::nullopt;  // no type and source after the separator
  MountEntry m;
  std::string dev(f[2]);
  if (std::sscanf(dev.c_str(), "%u:%u", &m.major, &m.minor) != 2) return std::nullopt;
  m.mount_point = Unescape(f[4]);
  m.fs_type = std::string(f[dash + 1]);
  m.source = Unescape(f[dash + 2]);
  m.options = MergeOptions(f[5], dash + 3 < f.size() ? f[dash + 3] : std::string_view());
  return m;
}

bool IsPrefixDir(const std::string& mount_point, const std::string& path) {
  if (mount_point == "/") return true;
  return path.compare(0, mount_point.size(), mount_point) == 0 &&
         (path.size() == mount_point.size() || path[mount_point.size()] == '/');
}

// "tmpfs" or "ramfs" when `path` lies on one, else "".
std::string MemoryFileSystemOf(const std::string& path) {
  struct statfs fs {};
  if (statfs(path.c_str(), &fs) != 0) return "";
  if (fs.f_type == TMPFS_MAGIC) return "tmpfs";
  if (fs.f_type == RAMFS_MAGIC) return "ramfs";
  return "";
}

bool DigitsAfter(const std::string& name, const std::string& prefix) {
  return name.size() > prefix.size() && name.compare(0, prefix.size(), prefix) == 0 &&
         name.find_first_not_of("0123456789", prefix.size()) == std::string::npos;
}

}  // namespace

std::string MemoryBacked(const MountEntry& mount, const std::string& disk, const std::string& sys) {
  if (mount.fs_type == "tmpfs" || mount.fs_type == "ramfs") return mount.fs_type;
  if (DigitsAfter(disk, "zram")) return disk + " (compressed RAM)";
  if (DigitsAfter(disk, "ram")) return disk + " (brd RAM disk)";
  if (DigitsAfter(disk, "loop")) {
    const std::string backing = ReadText(sys + "/block/" + disk + "/loop/backing_file");
    // The kernel appends " (deleted)" to a backing file removed since: statfs its directory then.
    std::string path = backing;
    if (const size_t deleted = path.rfind(" (deleted)"); deleted != std::string::npos && deleted + 10 == path.size()) {
      path = std::filesystem::path(path.substr(0, deleted)).parent_path().string();
    }
    if (!backing.empty()) {
      if (std::string on = MemoryFileSystemOf(path); !on.empty()) return disk + " over " + on + " (" + backing + ")";
    }
    return "";
  }
  if (mount.fs_type == "overlay") {
    for (std::string_view option : Split(mount.options, ',')) {
      if (option.rfind("upperdir=", 0) != 0) continue;
      const std::string upper = Unescape(option.substr(9));
      if (std::string on = MemoryFileSystemOf(upper); !on.empty()) return "overlay over " + on + " (upperdir " + upper + ")";
    }
  }
  return "";
}

std::string ActiveScheduler(std::string_view text) {
  size_t open = text.find('[');
  size_t close = text.find(']', open == std::string_view::npos ? 0 : open);
  if (open != std::string_view::npos && close != std::string_view::npos) return std::string(text.substr(open + 1, close - open - 1));
  std::vector<std::string_view> words = Split(text, ' ');
  return words.size() == 1 ? std::string(words[0]) : std::string();
}

std::optional<MountEntry> FindMount(std::string_view mountinfo, dev_t dev, const std::string& path) {
  std::optional<MountEntry> on_device, any;
  for (std::string_view line : Split(mountinfo, '\n')) {
    std::optional<MountEntry> m = ParseLine(line);
    if (!m || !IsPrefixDir(m->mount_point, path)) continue;
    if (!any || m->mount_point.size() >= any->mount_point.size()) any = m;
    if (m->major == major(dev) && m->minor == minor(dev) &&
        (!on_device || m->mount_point.size() >= on_device->mount_point.size())) {
      on_device = m;
    }
  }
  return on_device ? on_device : any;
}

std::optional<BlockQueue> FindBlockQueue(unsigned major, unsigned minor, const std::string& sys) {
  if (major == 0) return std::nullopt;  // anonymous devices: tmpfs, overlay, nfs, btrfs subvolumes
  std::error_code ec;
  namespace fs = std::filesystem;
  fs::path device = fs::canonical(fs::path(sys) / "dev/block" / (std::to_string(major) + ":" + std::to_string(minor)), ec);
  if (ec) return std::nullopt;
  // A partition shares its disk's queue: the disk is the directory above it.
  if (fs::exists(device / "partition", ec)) device = device.parent_path();
  if (!fs::is_directory(device / "queue", ec)) return std::nullopt;
  BlockQueue q;
  q.disk = device.filename().string();
  q.scheduler = ActiveScheduler(ReadText((device / "queue/scheduler").string()));
  std::string ra = ReadText((device / "queue/read_ahead_kb").string());
  char* end = nullptr;
  unsigned long kib = ra.empty() ? 0 : std::strtoul(ra.c_str(), &end, 10);
  if (!ra.empty() && end && *end == '\0' && kib <= UINT32_MAX) q.read_ahead_kb = static_cast<uint32_t>(kib);
  return q;
}

v1::HostInfo GatherHostInfo(const std::string& dir) {
  v1::HostInfo info;
  utsname u{};
  if (uname(&u) == 0) {
    info.set_hostname(u.nodename);
    info.set_kernel(u.release);
  }
  long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  if (cpus > 0) info.set_cpus(static_cast<uint32_t>(cpus));
  info.set_memory_bytes(PhysicalMemoryBytes());

  struct stat st;
  char real[PATH_MAX];
  if (stat(dir.c_str(), &st) != 0 || !realpath(dir.c_str(), real)) return info;
  std::optional<MountEntry> mount = FindMount(ReadText("/proc/self/mountinfo"), st.st_dev, real);
  if (!mount) return info;
  info.set_mount_point(mount->mount_point);
  info.set_fs_type(mount->fs_type);
  info.set_mount_options(mount->options);
  info.set_device(mount->source);
  if (std::optional<BlockQueue> queue = FindBlockQueue(mount->major, mount->minor)) {
    info.set_block_device(queue->disk);
    info.set_scheduler(queue->scheduler);
    if (queue->read_ahead_kb) info.set_read_ahead_kb(*queue->read_ahead_kb);
  }
  info.set_memory_backed(MemoryBacked(*mount, info.block_device()));
  return info;
}

}  // namespace iofleet::agent
