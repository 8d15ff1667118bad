// Where a service of the harness keeps its rows: the file <data-dir>/<service>.db, or, when
// WHIZBANG_CRASH_STORES is set, that store location with "{service}" replaced by the service's
// name (a PostgreSQL conninfo whose search_path is a schema per service, say). So one harness runs
// on either backend; whizbang::open_work_store reads both forms.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <string>

namespace crash_restart {

inline std::string store_location(const std::filesystem::path& data_dir,
                                  const std::string& service) {
  const char* pattern = std::getenv("WHIZBANG_CRASH_STORES");
  if (pattern == nullptr || *pattern == '\0') return (data_dir / (service + ".db")).string();
  std::string location = pattern;
  for (std::size_t at = location.find("{service}"); at != std::string::npos;
       at = location.find("{service}", at + service.size())) {
    location.replace(at, 9, service);
  }
  return location;
}

}  // namespace crash_restart
