// What a test can see of osmp's shared memory from the outside: the
// segments this process maps or holds a descriptor of (unnamed files of the
// shm directory, "<dir>/#<inode> (deleted)"), and entries of the directory.
#pragma once

#include <dirent.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <string>

#include "shm/segment.hpp"

namespace osmp::test {

// Mappings of this process that are segments (/proc/self/maps).
inline int osmp_mappings() {
  const std::string unnamed = shm_dir() + "/#";
  int n = 0;
  if (FILE* f = std::fopen("/proc/self/maps", "r")) {
    char line[512];
    while (std::fgets(line, sizeof line, f))
      if (std::strstr(line, unnamed.c_str()) && std::strstr(line, "(deleted)")) ++n;
    std::fclose(f);
  }
  return n;
}

// Descriptors of this process that are segments (/proc/self/fd): a creator
// holds one only while its peers attach.
inline int osmp_descriptors() {
  const std::string unnamed = shm_dir() + "/#";
  int n = 0;
  if (DIR* d = ::opendir("/proc/self/fd")) {
    while (dirent* e = ::readdir(d)) {
      char target[512];
      std::string link = std::string("/proc/self/fd/") + e->d_name;
      ssize_t len = ::readlink(link.c_str(), target, sizeof target - 1);
      if (len <= 0) continue;
      target[len] = '\0';
      if (std::strncmp(target, unnamed.c_str(), unnamed.size()) == 0) ++n;
    }
    ::closedir(d);
  }
  return n;
}

// Entries of the shm directory whose name holds `needle`.
inline int shm_entries(const std::string& needle) {
  int n = 0;
  if (DIR* d = ::opendir(shm_dir().c_str())) {
    while (dirent* e = ::readdir(d))
      if (std::string(e->d_name).find(needle) != std::string::npos) ++n;
    ::closedir(d);
  }
  return n;
}

}  // namespace osmp::test
