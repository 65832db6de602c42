// What a test can see of osmp's shared memory from the outside: segments this
// process maps, names left in the shared-memory directory.
#pragma once

#include <dirent.h>

#include <cstdio>
#include <cstring>
#include <string>

namespace osmp::test {

// Mappings of this process that are osmp segments (/proc/self/maps).
inline int osmp_mappings() {
  int n = 0;
  if (FILE* f = std::fopen("/proc/self/maps", "r")) {
    char line[512];
    while (std::fgets(line, sizeof line, f))
      if (std::strstr(line, "/osmp-")) ++n;
    std::fclose(f);
  }
  return n;
}

// Entries of /dev/shm whose name holds `needle`.
inline int shm_entries(const std::string& needle) {
  int n = 0;
  if (DIR* d = ::opendir("/dev/shm")) {
    while (dirent* e = ::readdir(d))
      if (std::string(e->d_name).find(needle) != std::string::npos) ++n;
    ::closedir(d);
  }
  return n;
}

}  // namespace osmp::test
