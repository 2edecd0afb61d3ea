// The three PEM files of a --tls-dir: ca.pem (the CA every peer must be signed by), cert.pem and
// key.pem (this side's certificate and private key).
#pragma once

#include <fstream>
#include <sstream>
#include <string>

#include "core/base/status.h"

namespace iofleet {

struct TlsFiles {
  std::string ca;
  std::string cert;
  std::string key;
  // The controller's side: the name an agent's certificate must carry (--tls-server-name);
  // empty: the host part of the address dialled.
  std::string server_name = {};
};

inline Result<TlsFiles> ReadTlsDir(const std::string& dir) {
  TlsFiles files;
  for (auto [name, out] : {std::pair{"ca.pem", &files.ca}, {"cert.pem", &files.cert}, {"key.pem", &files.key}}) {
    std::string path = dir + "/" + name;
    std::ifstream in(path);
    if (!in) return PosixError("--tls-dir " + path, errno ? errno : ENOENT);
    std::stringstream text;
    text << in.rdbuf();
    *out = text.str();
    if (out->find("-----BEGIN") == std::string::npos) return InvalidArgument("--tls-dir " + path + ": not a PEM file");
  }
  return files;
}

}  // namespace iofleet
