// `iofleet serve --config serve.yaml`: the config file, loaded by the workload loader's rules
// (proto/iofleet/v1/serve.proto is its schema) and then checked as a whole. Every error names
// file:line:col of the field at fault (of the enclosing entry, or 1:1, when a field is missing),
// and all of them are collected: first the schema's (unknown keys, types, units, bounds), as for
// workloads; when there are none, every check below.
//
// Rules beyond the schema:
//   - Relative paths (workload, token_file, tls_dir of the server and of fleets, db, results)
//     are relative to the directory of the config file; the loaded config holds them absolute.
//   - listen is HOST:PORT ([v6]:PORT for IPv6). Without tls_dir the service speaks plain HTTP,
//     allowed only when the host is loopback (127.0.0.0/8, ::1, localhost).
//   - tls_dir holds readable cert.pem and key.pem (a `server` role certificate from
//     deploy/tls/make-certs).
//   - token_file is required, readable and not empty; its contents with trailing whitespace
//     trimmed are the token (one word: no spaces or control characters inside). A token file
//     that the group or others may read is a warning, not an error: a Kubernetes Secret is
//     mounted 0644 by default and is private to its pod anyway.
//   - db's directory exists; results exists or its parent does (nothing is created here).
//   - keep_runs >= 1 (default 500); time_zone UTC (default) or local.
//   - At least one fleet and one suite. A fleet's name follows the suites' rule below; its
//     agents parse as `--agents` (an @FILE relative to the config file too); its tls_dir is read
//     like --tls-dir (ca.pem, cert.pem, key.pem), tls_server_name like --tls-server-name (and
//     needs tls_dir). A fleet without tls_dir dials its agents without TLS, as `run` does
//     without --tls-dir.
//   - A suite's name is unique and matches [A-Za-z0-9][A-Za-z0-9._-]{0,63}; its fleet exists;
//     its workload loads (errors keep their own file:line:col, prefixed with the suite), `set`
//     is applied in key order like `--set` and the result validated again; labels follow
//     `--label`'s rules; schedule (cron) and every (>= 1s) exclude each other, and a suite with
//     neither runs only when asked (the API or the page); max_regression needs compare_to;
//     missed is run_once (default) or skip; webhook is http(s)://HOST[:PORT]/PATH.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "controller/history/verdict.h"
#include "controller/push/run_labels.h"
#include "controller/serve/cron.h"
#include "core/base/status.h"
#include "core/base/tls_files.h"
#include "iofleet/v1/workload.pb.h"

namespace iofleet::controller {

struct ServeFleet {
  std::string name;
  std::vector<std::string> agents;  // ParseAgentList of `agents` at load (checks it)
  std::string agents_spec;          // `agents`, an @FILE made absolute: read again at each run, so
                                    // that dns: names and agents files follow the fleet as it changes
  std::optional<TlsFiles> tls;      // from tls_dir, server_name from tls_server_name
};

enum class MissedPolicy { kRunOnce, kSkip };

struct ServeSuite {
  std::string name;
  std::string fleet;          // a key of ServeConfig::fleets
  std::string workload_file;  // absolute
  v1::Workload workload;      // loaded, `set` applied, validated
  RunLabels labels;           // sorted by key
  std::optional<CronSchedule> cron;
  std::chrono::nanoseconds every{0};  // 0: no interval (cron, or on demand only)
  std::optional<VerdictOptions> verdicts;  // when compare_to is given; alpha 0.05
  MissedPolicy missed = MissedPolicy::kRunOnce;
  std::string webhook;  // "" or an http(s) URL that ParseWebhookUrl accepts
};

struct ServeConfig {
  std::string file;      // the config file, as given
  std::string listen;    // as written
  std::string listen_host;  // without brackets
  uint16_t listen_port = 0;
  std::string tls_dir;   // absolute; "" for plain HTTP (loopback only)
  std::string token;     // the token file's contents, trailing whitespace trimmed
  bool public_read = false;
  std::string db;        // absolute
  std::string results;   // absolute
  uint32_t keep_runs = 500;
  TimeZone zone = TimeZone::kUtc;
  std::string pushgateway;  // "" or a URL that ParsePushgatewayUrl accepts
  std::map<std::string, ServeFleet> fleets;
  std::vector<ServeSuite> suites;  // in the file's order
};

struct LoadedServeConfig {
  ServeConfig config;
  std::vector<std::string> errors;    // "file:line:col: path: message"; empty when valid
  std::vector<std::string> warnings;  // the same form; print them and carry on
};

LoadedServeConfig LoadServeConfig(const std::string& path);

struct ListenAddress {
  std::string host;  // a name, IPv4, or IPv6 without brackets
  uint16_t port = 0;
  bool loopback = false;  // localhost, 127.0.0.0/8 or ::1
};
// "HOST:PORT" or "[V6]:PORT", port 1-65535.
Result<ListenAddress> ParseListenAddress(const std::string& text);

struct WebhookUrl {
  bool https = false;
  std::string host;  // without brackets
  std::string port;  // "80" or "443" when the URL gives none
  std::string target;  // the path (with any query), at least "/"
};
// http(s)://HOST[:PORT][/PATH]; no user or password (they would be logged), no fragment.
Result<WebhookUrl> ParseWebhookUrl(const std::string& text);

}  // namespace iofleet::controller
