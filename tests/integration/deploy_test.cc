// What deploy/ ships, checked by the tools that will read it: systemd's units by
// `systemd-analyze verify` (every directive known, every command there, the drop-in applied),
// the Kubernetes manifests by `kubectl kustomize` and a check of what it renders, and serve's
// configs by `iofleet serve --check` where this iofleet has serve.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>

#include <yaml-cpp/yaml.h>

#include "tests/support/process.h"
#include "tests/support/temp_dir.h"
#include "tests/support/test_paths.h"

namespace iofleet::testing {
namespace {

namespace fs = std::filesystem;

std::string ReadAll(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// `text` with every `from` replaced by `to`.
std::string ReplaceAll(std::string text, const std::string& from, const std::string& to) {
  for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) text.replace(at, from.size(), to);
  return text;
}

// PATH is DIR or beneath it.
bool IsBeneath(const std::string& path, const std::string& dir) {
  return path == dir || path.rfind(dir + "/", 0) == 0;
}

// `iofleet serve --check` where the built iofleet has serve; nullopt where it has not.
std::optional<CommandResult> ServeCheck(const fs::path& config, const fs::path& logs) {
  // Its help lists the subcommands (`iofleet serve --help` without serve prints that same help).
  if (RunCommand({BinPath("iofleet"), "--help"}, logs).out.find("\n  serve ") == std::string::npos) return std::nullopt;
  return RunCommand({BinPath("iofleet"), "serve", "--config", config.string(), "--check"}, logs);
}

// A CA, a `server` certificate in DIR/serve-tls and a `controller` one in DIR/controller-tls, as
// deploy/tls/make-certs makes them, and a token file of mode 0600.
void MakeServeSecrets(const fs::path& dir, const fs::path& token_file, const fs::path& logs) {
  const std::string make_certs = SourcePath("deploy/tls/make-certs");
  const fs::path certs = dir / "certs";
  ASSERT_EQ(RunCommand({make_certs, certs.string(), "server", "serve.example", "127.0.0.1"}, logs).code, 0);
  ASSERT_EQ(RunCommand({make_certs, certs.string(), "controller", "ctl"}, logs).code, 0);
  fs::create_directories(dir);
  fs::copy(certs / "serve.example", dir / "serve-tls", fs::copy_options::recursive);
  fs::copy(certs / "ctl", dir / "controller-tls", fs::copy_options::recursive);
  fs::create_directories(token_file.parent_path());
  std::ofstream(token_file) << "0123456789abcdef0123456789abcdef\n";
  fs::permissions(token_file, fs::perms::owner_read | fs::perms::owner_write);
}

// A copy of a unit whose commands are the freshly built binaries: verify checks that they exist.
// Each command path is double-quoted, as systemd allows: the checkout may sit in a folder with a
// space in its name.
void CopyUnit(const fs::path& from, const fs::path& to) {
  std::string text = ReadAll(from);
  const std::string installed = "/usr/bin/iofleet";
  for (size_t at = text.find(installed); at != std::string::npos; at = text.find(installed, at)) {
    size_t end = text.find_first_of(" \t\n", at);
    if (end == std::string::npos) end = text.size();
    const std::string name = text.substr(at + 9, end - at - 9);  // after "/usr/bin/"
    const std::string built = "\"" + std::string(IOFLEET_BIN_DIR) + "/" + name + "\"";
    text.replace(at, end - at, built);
    at += built.size();
  }
  std::ofstream(to) << text;
}

TEST(SystemdUnits, VerifyCleanlyWithTheDropIn) {
  if (!fs::exists("/usr/bin/systemd-analyze")) GTEST_SKIP() << "systemd-analyze is not installed";
  TempDir tmp;
  const fs::path units = tmp / "units";
  fs::create_directories(units / "iofleet-agent.service.d");
  const fs::path shipped = SourcePath("deploy/systemd");
  std::vector<std::string> argv = {"/usr/bin/env", "SYSTEMD_UNIT_PATH=" + units.string() + ":", "systemd-analyze", "verify"};
  for (const auto& entry : fs::directory_iterator(shipped)) {
    const std::string name = entry.path().filename().string();
    if (entry.path().extension() == ".conf") {
      CopyUnit(entry.path(), units / "iofleet-agent.service.d" / name);
      continue;
    }
    CopyUnit(entry.path(), units / name);
    argv.push_back((units / name).string());
  }
  ASSERT_GE(argv.size(), 8u) << "the agent unit, the nightly service and its timer, the serve unit at least";
  CommandResult verify = RunCommand(argv, tmp.path());
  EXPECT_EQ(verify.code, 0) << verify.err;
  // Unknown directives are only warnings to systemd: here they fail.
  EXPECT_EQ(verify.err, "") << verify.err;
  EXPECT_EQ(verify.out, "") << verify.out;
}

TEST(SystemdUnits, TheAgentUnitIsHardened) {
  const std::string unit = ReadAll(SourcePath("deploy/systemd/iofleet-agent.service"));
  for (const char* directive : {"User=iofleet", "ProtectSystem=strict", "IOFLEET_ROOT=/var/lib/iofleet-agent/root", "LimitMEMLOCK=infinity",
                                "Restart=on-failure", "StateDirectory=iofleet-agent iofleet-agent/root", "--config /etc/iofleet/agent.yaml",
                                "--tls-dir /etc/iofleet/tls", "NoNewPrivileges=true", "CapabilityBoundingSet=\n",
                                // a root on NFS: after the remote mounts (RequiresMountsFor= in a drop-in)
                                "remote-fs.target", "RequiresMountsFor="}) {
    EXPECT_NE(unit.find(directive), std::string::npos) << directive;
  }
}

// The nightly controller acts as a controller: its certificate is not the agent's, whose key
// cannot act as a client (make-certs's roles), so the two units never share a TLS folder.
TEST(SystemdUnits, TheNightlyUnitUsesAControllerCertificateOfItsOwn) {
  const std::string unit = ReadAll(SourcePath("deploy/systemd/iofleet-nightly.service"));
  EXPECT_NE(unit.find("User=iofleet"), std::string::npos);
  EXPECT_NE(unit.find("--tls-dir /etc/iofleet/controller-tls "), std::string::npos) << unit;
  EXPECT_EQ(unit.find("/etc/iofleet/tls"), std::string::npos) << unit;
}

// serve runs as the controller's user with its config checked before it starts, stops its runs
// gently on SIGTERM (each agent has up to 60 s to stop and clean up), restarts after a failure,
// and can write only its state folder.
TEST(SystemdUnits, TheServeUnitChecksItsConfigAndStopsGently) {
  const std::string unit = ReadAll(SourcePath("deploy/systemd/iofleet-serve.service"));
  for (const char* directive : {"Type=exec\n", "User=iofleet\n", "Group=iofleet\n",
                                "ExecStartPre=/usr/bin/iofleet serve --config /etc/iofleet/serve.yaml --check\n",
                                "ExecStart=/usr/bin/iofleet serve --config /etc/iofleet/serve.yaml\n", "KillSignal=SIGTERM\n",
                                "Restart=on-failure\n", "StateDirectory=iofleet\n", "ProtectSystem=strict\n", "ProtectHome=true\n",
                                "PrivateTmp=true\n", "NoNewPrivileges=true\n", "CapabilityBoundingSet=\n",
                                "RestrictAddressFamilies=AF_INET AF_INET6 AF_UNIX\n", "Wants=network-online.target\n",
                                "WantedBy=multi-user.target\n"}) {
    EXPECT_NE(unit.find(directive), std::string::npos) << directive;
  }
  const size_t timeout = unit.find("TimeoutStopSec=");
  ASSERT_NE(timeout, std::string::npos);
  EXPECT_GE(std::stoi(unit.substr(timeout + 15)), 120) << "SIGKILL would cut the agents' 60 s stop deadline short";
  // The agents' certificate folder is the agent unit's, not a controller's (make-certs's roles).
  EXPECT_EQ(unit.find("/etc/iofleet/tls"), std::string::npos) << unit;
}

// deploy/serve.example.yaml fits the unit: it writes only beneath the unit's StateDirectory
// (ProtectSystem=strict leaves nothing else writable), reads the rest from /etc/iofleet, and its
// controller certificate is a folder of its own.
TEST(ServeConfig, TheExampleWritesOnlyWhereTheUnitMayWrite) {
  YAML::Node config = YAML::LoadFile(SourcePath("deploy/serve.example.yaml"));
  EXPECT_TRUE(IsBeneath(config["db"].as<std::string>(), "/var/lib/iofleet"));
  EXPECT_TRUE(IsBeneath(config["results"].as<std::string>(), "/var/lib/iofleet"));
  EXPECT_TRUE(IsBeneath(config["tls_dir"].as<std::string>(), "/etc/iofleet"));
  EXPECT_TRUE(IsBeneath(config["token_file"].as<std::string>(), "/etc/iofleet"));
  ASSERT_GT(config["fleets"].size(), 0u);
  for (const auto& fleet : config["fleets"]) {
    EXPECT_EQ(fleet.second["tls_dir"].as<std::string>(""), "/etc/iofleet/controller-tls") << fleet.first.as<std::string>();
  }
  bool relative_workload = false;
  for (const auto& suite : config["suites"]) relative_workload |= suite["workload"].as<std::string>()[0] != '/';
  EXPECT_TRUE(relative_workload) << "the example shows a workload path relative to the config";
}

// The example passes `iofleet serve --check` once its /etc/iofleet and /var/lib/iofleet are
// folders of this test holding what the comments say to make.
TEST(ServeConfig, TheExamplePassesServeCheck) {
  TempDir tmp;
  const fs::path etc = tmp / "etc", var = tmp / "var";
  MakeServeSecrets(etc, etc / "serve.token", tmp.path());
  fs::create_directories(etc / "workloads");
  fs::create_directories(var);
  fs::copy(SourcePath("workloads/quickstart.yaml"), etc / "workloads" / "nightly.yaml");
  fs::copy(SourcePath("workloads/quickstart.yaml"), etc / "workloads" / "quickstart.yaml");
  std::string text = ReadAll(SourcePath("deploy/serve.example.yaml"));
  text = ReplaceAll(ReplaceAll(text, "/etc/iofleet/", etc.string() + "/"), "/var/lib/iofleet/", var.string() + "/");
  std::ofstream(etc / "serve.yaml") << text;
  std::optional<CommandResult> check = ServeCheck(etc / "serve.yaml", tmp.path());
  if (!check) GTEST_SKIP() << "this iofleet has no serve";
  EXPECT_EQ(check->code, 0) << check->out << check->err;
}

// The rendered objects of a kustomization, by kind and name.
class Rendered {
 public:
  static Rendered Of(const std::string& kustomization, const fs::path& logs) {
    Rendered r;
    CommandResult render = RunCommand({"/usr/bin/kubectl", "kustomize", SourcePath(kustomization)}, logs);
    EXPECT_EQ(render.code, 0) << kustomization << ": " << render.err;
    for (const YAML::Node& doc : YAML::LoadAll(render.out)) {
      EXPECT_TRUE(doc["apiVersion"] && doc["kind"] && doc["metadata"]["name"]) << kustomization << ": " << YAML::Dump(doc);
      r.objects_[doc["kind"].as<std::string>() + "/" + doc["metadata"]["name"].as<std::string>()] = doc;
    }
    return r;
  }
  YAML::Node Get(const std::string& kind, const std::string& name) const {
    auto it = objects_.find(kind + "/" + name);
    EXPECT_NE(it, objects_.end()) << kind << "/" << name << " is not rendered";
    return it == objects_.end() ? YAML::Node() : it->second;
  }
  // A generated ConfigMap's name carries a hash: found by its prefix.
  YAML::Node ConfigMap(const std::string& prefix) const {
    for (const auto& [key, doc] : objects_) {
      if (key.rfind("ConfigMap/" + prefix + "-", 0) == 0) return doc;
    }
    ADD_FAILURE() << "no ConfigMap " << prefix;
    return YAML::Node();
  }
  const std::map<std::string, YAML::Node>& objects() const { return objects_; }

 private:
  std::map<std::string, YAML::Node> objects_;
};

bool HasArg(const YAML::Node& container, const std::string& arg) {
  for (const auto& a : container["args"]) {
    if (a.as<std::string>() == arg) return true;
  }
  return false;
}

// The container's volume mounted at PATH or at a folder above it ("" when none is).
std::string VolumeAt(const YAML::Node& container, const std::string& path) {
  std::string volume, deepest;
  for (const auto& m : container["volumeMounts"]) {
    const std::string at = m["mountPath"].as<std::string>();
    if (IsBeneath(path, at) && at.size() > deepest.size()) {
      deepest = at;
      volume = m["name"].as<std::string>();
    }
  }
  return volume;
}

YAML::Node PodVolume(const YAML::Node& pod_spec, const std::string& name) {
  for (const auto& v : pod_spec["volumes"]) {
    if (v["name"].as<std::string>() == name) return v;
  }
  ADD_FAILURE() << (name.empty() ? "a path of serve.yaml is on no volume the container mounts" : "no volume " + name);
  return YAML::Node();
}

// serve: one Deployment replaced by Recreate (SQLite has one writer) on a PVC of its own, probed
// on /healthz over HTTPS, non-root, its Service and PodMonitor on its port, and a serve.yaml whose
// every path is where the Deployment mounts it: its config and workloads from the ConfigMap,
// its HTTPS certificate, token and controller certificate from Secrets, the history on the PVC.
void CheckServe(const Rendered& r, const std::string& agent_service_dns, int grpc_port, const fs::path& tmp) {
  YAML::Node deployment = r.Get("Deployment", "iofleet-serve");
  ASSERT_TRUE(deployment);
  EXPECT_EQ(deployment["spec"]["replicas"].as<int>(), 1);
  EXPECT_EQ(deployment["spec"]["strategy"]["type"].as<std::string>(), "Recreate");
  YAML::Node pod = deployment["spec"]["template"];
  YAML::Node spec = pod["spec"];
  EXPECT_GE(spec["terminationGracePeriodSeconds"].as<int>(0), 150) << "the agents' stop deadline is 60 s each";
  for (const auto& kv : deployment["spec"]["selector"]["matchLabels"]) {
    EXPECT_EQ(pod["metadata"]["labels"][kv.first.as<std::string>()].as<std::string>(""), kv.second.as<std::string>());
  }
  ASSERT_EQ(spec["containers"].size(), 1u);
  YAML::Node serve = spec["containers"][0];
  EXPECT_EQ(serve["command"][0].as<std::string>(), "/usr/bin/iofleet");
  EXPECT_EQ(serve["args"][0].as<std::string>(), "serve");
  YAML::Node security = serve["securityContext"];
  EXPECT_TRUE(security["runAsNonRoot"].as<bool>(false) || spec["securityContext"]["runAsNonRoot"].as<bool>(false));
  EXPECT_NE(security["runAsUser"].as<int>(spec["securityContext"]["runAsUser"].as<int>(0)), 0);
  EXPECT_TRUE(security["readOnlyRootFilesystem"].as<bool>(false));
  EXPECT_FALSE(security["allowPrivilegeEscalation"].as<bool>(true));
  EXPECT_EQ(security["capabilities"]["drop"][0].as<std::string>(""), "ALL");
  EXPECT_FALSE(security["privileged"].as<bool>(false));

  std::map<std::string, int> ports;
  for (const auto& p : serve["ports"]) ports[p["name"].as<std::string>()] = p["containerPort"].as<int>();
  for (const char* probe : {"livenessProbe", "readinessProbe"}) {
    YAML::Node get = serve[probe]["httpGet"];
    EXPECT_EQ(get["path"].as<std::string>(""), "/healthz") << probe;
    EXPECT_EQ(get["scheme"].as<std::string>(""), "HTTPS") << probe;
    EXPECT_TRUE(ports.count(get["port"].as<std::string>(""))) << probe << " is on no container port";
  }

  YAML::Node svc = r.Get("Service", "iofleet-serve");
  EXPECT_EQ(svc["spec"]["type"].as<std::string>("ClusterIP"), "ClusterIP");
  EXPECT_GT(svc["spec"]["selector"].size(), 0u);
  for (const auto& kv : svc["spec"]["selector"]) {
    EXPECT_EQ(pod["metadata"]["labels"][kv.first.as<std::string>()].as<std::string>(""), kv.second.as<std::string>());
  }
  ASSERT_EQ(svc["spec"]["ports"].size(), 1u);
  EXPECT_EQ(svc["spec"]["ports"][0]["port"].as<int>(), 8443);
  EXPECT_EQ(ports[svc["spec"]["ports"][0]["targetPort"].as<std::string>()], 8443);

  // Its own history: the Job's and CronJob's claim is theirs (ReadWriteOnce, one SQLite writer).
  std::string claim;
  for (const auto& v : spec["volumes"]) {
    if (v["persistentVolumeClaim"]) claim = v["persistentVolumeClaim"]["claimName"].as<std::string>();
    if (v["configMap"]) r.Get("ConfigMap", v["configMap"]["name"].as<std::string>());
  }
  ASSERT_FALSE(claim.empty()) << "serve keeps its history on no PVC";
  r.Get("PersistentVolumeClaim", claim);
  for (const YAML::Node& jobs : {r.Get("Job", "iofleet-run")["spec"]["template"]["spec"],
                                 r.Get("CronJob", "iofleet-nightly")["spec"]["jobTemplate"]["spec"]["template"]["spec"]}) {
    for (const auto& v : jobs["volumes"]) {
      if (!v["persistentVolumeClaim"]) continue;
      EXPECT_NE(v["persistentVolumeClaim"]["claimName"].as<std::string>(), claim) << "serve shares the jobs' PVC";
    }
  }

  // serve.yaml, read where the Deployment mounts it, names only mounted paths.
  const std::string config_arg = serve["args"][1].as<std::string>();
  ASSERT_EQ(config_arg.rfind("--config=", 0), 0u) << config_arg;
  const fs::path config_path = config_arg.substr(9);
  YAML::Node config_volume = PodVolume(spec, VolumeAt(serve, config_path.string()));
  ASSERT_TRUE(config_volume["configMap"]) << config_path << " is not from a ConfigMap";
  YAML::Node config_map = r.Get("ConfigMap", config_volume["configMap"]["name"].as<std::string>());
  const std::string config_text = config_map["data"][config_path.filename().string()].as<std::string>("");
  ASSERT_FALSE(config_text.empty()) << config_path.filename() << " is not in the ConfigMap";
  YAML::Node config = YAML::Load(config_text);
  const std::string listen = config["listen"].as<std::string>();
  EXPECT_EQ(listen, "0.0.0.0:" + std::to_string(ports["https"])) << "serve listens on another port than the probes'";
  auto secret_at = [&](const std::string& path) {
    YAML::Node v = PodVolume(spec, VolumeAt(serve, path));
    return v && v["secret"] ? v["secret"]["secretName"].as<std::string>() : std::string();
  };
  const std::string serve_tls = secret_at(config["tls_dir"].as<std::string>());
  EXPECT_EQ(serve_tls, "iofleet-serve-tls");
  EXPECT_EQ(secret_at(config["token_file"].as<std::string>()), "iofleet-serve-token");
  for (const char* state : {"db", "results"}) {
    YAML::Node v = PodVolume(spec, VolumeAt(serve, config[state].as<std::string>()));
    EXPECT_TRUE(v["persistentVolumeClaim"] && v["persistentVolumeClaim"]["claimName"].as<std::string>() == claim)
        << state << " is not on serve's PVC";
  }
  ASSERT_GT(config["fleets"].size(), 0u);
  for (const auto& fleet : config["fleets"]) {
    EXPECT_EQ(fleet.second["agents"].as<std::string>(""), "dns:" + agent_service_dns + ":" + std::to_string(grpc_port));
    EXPECT_EQ(fleet.second["tls_server_name"].as<std::string>(""), agent_service_dns);
    EXPECT_EQ(secret_at(fleet.second["tls_dir"].as<std::string>("")), "iofleet-controller-tls");
  }
  ASSERT_GT(config["suites"].size(), 0u);
  for (const auto& suite : config["suites"]) {
    const fs::path workload = (config_path.parent_path() / suite["workload"].as<std::string>()).lexically_normal();
    EXPECT_EQ(VolumeAt(serve, workload.string()), config_volume["name"].as<std::string>()) << workload;
    const std::string text = config_map["data"][workload.filename().string()].as<std::string>("");
    ASSERT_FALSE(text.empty()) << workload << " is not in ConfigMap " << config_map["metadata"]["name"];
    std::ofstream(tmp / "serve-workload.yaml") << text;
    CommandResult valid = RunCommand({BinPath("iofleet"), "validate", (tmp / "serve-workload.yaml").string()}, tmp);
    EXPECT_EQ(valid.code, 0) << valid.err;
  }

  // Prometheus scrapes /metrics on serve's port, with its token, checking its certificate
  // against the Service's name.
  YAML::Node monitor = r.Get("PodMonitor", "iofleet-serve");
  for (const auto& kv : monitor["spec"]["selector"]["matchLabels"]) {
    EXPECT_EQ(pod["metadata"]["labels"][kv.first.as<std::string>()].as<std::string>(""), kv.second.as<std::string>());
  }
  YAML::Node endpoint = monitor["spec"]["podMetricsEndpoints"][0];
  EXPECT_TRUE(ports.count(endpoint["port"].as<std::string>("")));
  EXPECT_EQ(endpoint["path"].as<std::string>(""), "/metrics");
  EXPECT_EQ(endpoint["scheme"].as<std::string>(""), "https");
  EXPECT_EQ(endpoint["authorization"]["credentials"]["name"].as<std::string>(""), "iofleet-serve-token");
  EXPECT_EQ(endpoint["authorization"]["credentials"]["key"].as<std::string>(""),
            fs::path(config["token_file"].as<std::string>()).filename().string());
  EXPECT_EQ(endpoint["tlsConfig"]["ca"]["secret"]["name"].as<std::string>(""), serve_tls);
  EXPECT_EQ(endpoint["tlsConfig"]["serverName"].as<std::string>(""),
            "iofleet-serve." + deployment["metadata"]["namespace"].as<std::string>("") + ".svc");

  // And serve itself accepts it, with every absolute path in a folder of this test.
  TempDir root;
  auto local = [&](const std::string& path) { return path[0] == '/' ? (root / path.substr(1)).string() : path; };
  YAML::Node moved = YAML::Clone(config);
  for (const char* key : {"tls_dir", "token_file", "db", "results"}) moved[key] = local(config[key].as<std::string>());
  for (auto fleet : moved["fleets"]) {
    fleet.second["tls_dir"] = local(fleet.second["tls_dir"].as<std::string>());
    // The Service's name resolves only in the cluster (its agents are checked above).
    fleet.second["agents"] = "127.0.0.1:" + std::to_string(grpc_port);
  }
  MakeServeSecrets(local("/etc/iofleet"), local(config["token_file"].as<std::string>()), root.path());
  EXPECT_EQ(local(config["tls_dir"].as<std::string>()), local("/etc/iofleet/serve-tls")) << "MakeServeSecrets made another folder";
  fs::create_directories(fs::path(local(config["db"].as<std::string>())).parent_path());
  const fs::path config_dir = local(config_path.parent_path().string());
  fs::create_directories(config_dir);
  for (const auto& kv : config_map["data"]) std::ofstream(config_dir / kv.first.as<std::string>()) << kv.second.as<std::string>();
  std::ofstream(config_dir / config_path.filename()) << YAML::Dump(moved) << "\n";
  std::optional<CommandResult> check = ServeCheck(config_dir / config_path.filename(), root.path());
  if (check) {
    EXPECT_EQ(check->code, 0) << YAML::Dump(moved) << check->out << check->err;
  }
}

// What every overlay must hold together: the Service finds the DaemonSet's pods on the ports the
// controller is given, names agree, and what the pods mount is rendered.
void CheckFleet(const Rendered& r, const fs::path& tmp) {
  for (const auto& [key, doc] : r.objects()) {
    if (doc["kind"].as<std::string>() == "Namespace") continue;
    EXPECT_EQ(doc["metadata"]["namespace"].as<std::string>(""), "iofleet") << key;
  }
  YAML::Node ds = r.Get("DaemonSet", "iofleet-agent");
  YAML::Node svc = r.Get("Service", "iofleet-agent");
  ASSERT_TRUE(ds && svc);
  YAML::Node pod = ds["spec"]["template"];
  EXPECT_EQ(svc["spec"]["clusterIP"].as<std::string>(), "None");  // headless: DNS gives every pod
  // An empty selector would select every pod (or, for a Service, none): the loops below prove nothing then.
  EXPECT_GT(svc["spec"]["selector"].size(), 0u) << "the Service has no selector";
  for (const auto& kv : svc["spec"]["selector"]) {
    EXPECT_EQ(pod["metadata"]["labels"][kv.first.as<std::string>()].as<std::string>(""), kv.second.as<std::string>())
        << "the Service selects the DaemonSet's pods";
  }
  YAML::Node agent = pod["spec"]["containers"][0];
  std::map<std::string, int> container_ports;
  for (const auto& p : agent["ports"]) container_ports[p["name"].as<std::string>()] = p["containerPort"].as<int>();
  int grpc_port = 0;
  for (const auto& p : svc["spec"]["ports"]) {
    const std::string target = p["targetPort"].as<std::string>();
    ASSERT_TRUE(container_ports.count(target)) << "Service port " << target << " is no container port";
    EXPECT_EQ(p["port"].as<int>(), container_ports[target]);
    if (p["name"].as<std::string>() == "grpc") grpc_port = p["port"].as<int>();
  }
  EXPECT_EQ(grpc_port, 7070);
  EXPECT_TRUE(HasArg(agent, "--listen=0.0.0.0:" + std::to_string(container_ports["grpc"])));
  EXPECT_TRUE(HasArg(agent, "--metrics=0.0.0.0:" + std::to_string(container_ports["metrics"])));
  EXPECT_TRUE(HasArg(agent, "--name=$(NODE_NAME)"));
  EXPECT_EQ(agent["env"][0]["valueFrom"]["fieldRef"]["fieldPath"].as<std::string>(), "spec.nodeName");

  // The controller's Job and CronJob dial the Service's name and check the agents against it.
  const std::string service_dns = "iofleet-agent.$(POD_NAMESPACE).svc.cluster.local";
  YAML::Node job_pod = r.Get("Job", "iofleet-run")["spec"]["template"]["spec"];
  YAML::Node cron_pod = r.Get("CronJob", "iofleet-nightly")["spec"]["jobTemplate"]["spec"]["template"]["spec"];
  for (const YAML::Node& spec : {job_pod, cron_pod}) {
    YAML::Node controller = spec["containers"][0];
    EXPECT_TRUE(HasArg(controller, "--agents=dns:" + service_dns + ":" + std::to_string(grpc_port)));
    EXPECT_TRUE(HasArg(controller, "--tls-server-name=" + service_dns));
    EXPECT_EQ(controller["env"][0]["name"].as<std::string>(), "POD_NAMESPACE");
    bool history_on_pvc = false;
    for (const auto& v : spec["volumes"]) {
      if (v["persistentVolumeClaim"]) {
        history_on_pvc = true;
        r.Get("PersistentVolumeClaim", v["persistentVolumeClaim"]["claimName"].as<std::string>());
      }
      if (v["configMap"]) r.Get("ConfigMap", v["configMap"]["name"].as<std::string>());
    }
    EXPECT_TRUE(history_on_pvc);
  }
  for (const auto& v : pod["spec"]["volumes"]) {
    if (v["configMap"]) r.Get("ConfigMap", v["configMap"]["name"].as<std::string>());
  }
  YAML::Node monitor = r.Get("PodMonitor", "iofleet-agent");
  EXPECT_GT(monitor["spec"]["selector"]["matchLabels"].size(), 0u) << "the PodMonitor has no selector";
  for (const auto& kv : monitor["spec"]["selector"]["matchLabels"]) {
    EXPECT_EQ(pod["metadata"]["labels"][kv.first.as<std::string>()].as<std::string>(""), kv.second.as<std::string>());
  }
  EXPECT_TRUE(container_ports.count(monitor["spec"]["podMetricsEndpoints"][0]["port"].as<std::string>()));

  CheckServe(r, "iofleet-agent." + ds["metadata"]["namespace"].as<std::string>("") + ".svc.cluster.local", grpc_port, tmp);

  // The workload the jobs run is one iofleet accepts.
  std::ofstream(tmp / "workload.yaml") << r.ConfigMap("iofleet-workload")["data"]["workload.yaml"].as<std::string>();
  CommandResult valid = RunCommand({BinPath("iofleet"), "validate", (tmp / "workload.yaml").string()}, tmp);
  EXPECT_EQ(valid.code, 0) << valid.err;
}

class Kustomize : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!fs::exists("/usr/bin/kubectl")) GTEST_SKIP() << "kubectl is not installed";
  }
  TempDir tmp_;
};

TEST_F(Kustomize, BaseRendersAnUnprivilegedFleet) {
  Rendered r = Rendered::Of("deploy/kubernetes/base", tmp_.path());
  CheckFleet(r, tmp_.path());
  YAML::Node agent = r.Get("DaemonSet", "iofleet-agent")["spec"]["template"]["spec"]["containers"][0];
  EXPECT_FALSE(agent["securityContext"]["privileged"].as<bool>(false));
  EXPECT_EQ(agent["securityContext"]["capabilities"]["drop"][0].as<std::string>(), "ALL");
  EXPECT_NE(r.ConfigMap("iofleet-agent-config")["data"]["agent.yaml"].as<std::string>().find("allow_drop_caches: false"),
            std::string::npos);
}

// The dashboards ConfigMap holds the shipped dashboards, copied into deploy/kubernetes/ (kustomize
// loads no file from outside it): the copies must be the dashboards.
TEST_F(Kustomize, TheDashboardsConfigMapHoldsTheShippedDashboards) {
  Rendered r = Rendered::Of("deploy/kubernetes/base", tmp_.path());
  YAML::Node dashboards = r.Get("ConfigMap", "iofleet-dashboards");
  ASSERT_TRUE(dashboards);
  EXPECT_EQ(dashboards["metadata"]["labels"]["grafana_dashboard"].as<std::string>(""), "1");
  size_t shipped = 0;
  for (const auto& e : fs::directory_iterator(SourcePath("dashboards"))) {
    if (e.path().extension() != ".json") continue;
    ++shipped;
    const std::string name = e.path().filename().string();
    ASSERT_TRUE(dashboards["data"][name]) << name << " is not in the ConfigMap";
    EXPECT_EQ(dashboards["data"][name].as<std::string>(), ReadAll(e.path()))
        << "deploy/kubernetes/base/dashboards/" << name << " differs from dashboards/" << name
        << ": cp dashboards/*.json deploy/kubernetes/base/dashboards/";
  }
  EXPECT_EQ(dashboards["data"].size(), shipped);
}

// deploy/compose: every file it mounts is in the tree, Grafana's provider reads the folder the
// dashboards are mounted at, and its Prometheus configuration passes promtool as mounted.
TEST(Compose, MountsWhatIsShippedAndItsPrometheusConfigIsValid) {
  const fs::path compose_dir = SourcePath("deploy/compose");
  YAML::Node compose = YAML::LoadFile((compose_dir / "compose.yaml").string());
  TempDir tmp;
  std::map<std::string, fs::path> mounted;  // path in a container -> file in the tree
  for (const auto& service : compose["services"]) {
    for (const auto& v : service.second["volumes"]) {
      const std::string spec = v.as<std::string>();
      if (spec.rfind(".", 0) != 0) continue;  // a named volume
      const std::string source = spec.substr(0, spec.find(':'));
      const std::string target = spec.substr(source.size() + 1, spec.find(':', source.size() + 1) - source.size() - 1);
      const fs::path in_tree = fs::weakly_canonical(compose_dir / source);
      EXPECT_TRUE(fs::exists(in_tree)) << service.first.as<std::string>() << " mounts " << source << ", which is not in the tree";
      mounted[target] = in_tree;
    }
  }
  YAML::Node provider = YAML::LoadFile(mounted.at("/etc/grafana/provisioning/dashboards/iofleet.yml").string());
  EXPECT_TRUE(mounted.count(provider["providers"][0]["options"]["path"].as<std::string>()))
      << "the dashboards are not mounted where the provider looks";
  // Prometheus's view: its configuration and rules where compose mounts them.
  fs::create_directories(tmp / "etc");
  fs::copy(mounted.at("/etc/prometheus/prometheus.yml"), tmp / "etc" / "prometheus.yml");
  fs::copy(mounted.at("/etc/prometheus/rules"), tmp / "etc" / "rules", fs::copy_options::recursive);
  if (!fs::exists("/usr/bin/promtool")) GTEST_SKIP() << "promtool is not installed";
  CommandResult check = RunCommand({"/usr/bin/promtool", "check", "config", (tmp / "etc" / "prometheus.yml").string()}, tmp.path());
  EXPECT_EQ(check.code, 0) << check.out << check.err;
  EXPECT_NE(check.out.find("2 rule files found"), std::string::npos) << check.out;
}

TEST_F(Kustomize, PrivilegedOverlayAllowsDropCachesAndReadahead) {
  Rendered r = Rendered::Of("deploy/kubernetes/overlays/privileged", tmp_.path());
  CheckFleet(r, tmp_.path());
  YAML::Node agent = r.Get("DaemonSet", "iofleet-agent")["spec"]["template"]["spec"]["containers"][0];
  EXPECT_TRUE(agent["securityContext"]["privileged"].as<bool>(false));
  const std::string config = r.ConfigMap("iofleet-agent-config")["data"]["agent.yaml"].as<std::string>();
  EXPECT_NE(config.find("allow_drop_caches: true"), std::string::npos) << config;
  EXPECT_NE(config.find("allow_readahead: true"), std::string::npos) << config;
}

TEST_F(Kustomize, EphemeralRootOverlayUsesAVolumeClaimAndNoHostPath) {
  Rendered r = Rendered::Of("deploy/kubernetes/overlays/ephemeral-root", tmp_.path());
  CheckFleet(r, tmp_.path());
  YAML::Node spec = r.Get("DaemonSet", "iofleet-agent")["spec"]["template"]["spec"];
  for (const auto& v : spec["volumes"]) {
    EXPECT_FALSE(v["hostPath"]) << "volume " << v["name"].as<std::string>() << " is still a hostPath";
    if (v["name"].as<std::string>() == "root") {
      EXPECT_TRUE(v["ephemeral"]["volumeClaimTemplate"]);
    }
  }
  EXPECT_TRUE(spec["containers"][0]["securityContext"]["runAsNonRoot"].as<bool>(false));
}

}  // namespace
}  // namespace iofleet::testing
