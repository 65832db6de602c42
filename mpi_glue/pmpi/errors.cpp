#include "mpi_glue/pmpi/errors.hpp"

#include <cstring>
#include <map>

#include "core/log.hpp"

namespace osmp::pmpi {
namespace {

bool g_raise = false;

// Codes made so far, per (class, message); a bounded number, then the class.
constexpr std::size_t kMaxCodes = 64;

bool strings_kept(int code, const std::string& message) {
  char got[MPI_MAX_ERROR_STRING];
  int len = 0;
  if (PMPI_Error_string(code, got, &len) != MPI_SUCCESS) return false;
  return std::strncmp(got, message.c_str(), std::min<std::size_t>(message.size(), MPI_MAX_ERROR_STRING - 1)) == 0;
}

int code_for(int cls, const std::string& message) {
  static std::map<std::pair<int, std::string>, int> codes;
  static int usable = -1;  // whether this MPI keeps our strings: learnt from the first code
  if (usable == 0) return cls;
  auto it = codes.find({cls, message});
  if (it != codes.end()) return it->second;
  if (codes.size() >= kMaxCodes) return cls;
  int code = cls;
  if (PMPI_Add_error_code(cls, &code) != MPI_SUCCESS) return cls;
  PMPI_Add_error_string(code, message.c_str());
  if (usable < 0) usable = strings_kept(code, message) ? 1 : 0;
  if (usable == 0) return cls;
  codes.emplace(std::make_pair(cls, message), code);
  return code;
}

bool fatal(MPI_Comm comm) {
  MPI_Errhandler eh = MPI_ERRHANDLER_NULL;
  if (PMPI_Comm_get_errhandler(comm, &eh) != MPI_SUCCESS) return true;
  const bool is_fatal = eh == MPI_ERRORS_ARE_FATAL;
  if (eh != MPI_ERRHANDLER_NULL) PMPI_Errhandler_free(&eh);
  return is_fatal;
}

}  // namespace

int class_of(Errc e) {
  switch (e) {
    case Errc::ok: return MPI_SUCCESS;
    case Errc::invalid_argument:
    case Errc::mismatch: return MPI_ERR_ARG;
    case Errc::no_space: return MPI_ERR_NO_MEM;
    case Errc::internal: return MPI_ERR_INTERN;
    default: return MPI_ERR_OTHER;
  }
}

int error_code(MPI_Comm comm, const char* function, int cls, const std::string& message) {
  const std::string text = cat("osmp: ", function, ": ", message);
  int code = code_for(cls, text);
  if (fatal(comm))
    log(LogLevel::error, text);
  else
    log(LogLevel::info, text);
  return code;
}

int deliver(MPI_Comm comm, const char* function, int cls, const std::string& message) {
  const int code = error_code(comm, function, cls, message);
  if (g_raise) PMPI_Comm_call_errhandler(comm, code);
  return code;
}

void set_raise(bool on) { g_raise = on; }

}  // namespace osmp::pmpi
