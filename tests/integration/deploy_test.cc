// What deploy/ ships, checked by the tools that will read it: systemd's units by
// `systemd-analyze verify` (every directive known, every command there, the drop-in applied),
// the Kubernetes manifests by `kubectl kustomize` and a check of what it renders.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <fstream>
#include <sstream>

#include <yaml-cpp/yaml.h>

#include "tests/support/process.h"
#include "tests/support/temp_dir.h"

namespace iofleet::testing {
namespace {

namespace fs = std::filesystem;

std::string ReadAll(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// A copy of a unit whose commands are the freshly built binaries: verify checks that they exist.
void CopyUnit(const fs::path& from, const fs::path& to) {
  std::string text = ReadAll(from);
  const std::string installed = "/usr/bin/";
  for (size_t at = text.find(installed); at != std::string::npos; at = text.find(installed, at)) {
    text.replace(at, installed.size(), std::string(IOFLEET_BIN_DIR) + "/");
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
  ASSERT_GE(argv.size(), 7u) << "the agent unit, the nightly service and its timer at least";
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
