#include "core/status.hpp"

#include <cstdio>

namespace osmp {

const char* errc_name(Errc code) noexcept {
  switch (code) {
    case Errc::ok: return "ok";
    case Errc::invalid_argument: return "invalid_argument";
    case Errc::not_found: return "not_found";
    case Errc::topology: return "topology";
    case Errc::system: return "system";
    case Errc::mismatch: return "mismatch";
    case Errc::peer_dead: return "peer_dead";
    case Errc::aborted: return "aborted";
    case Errc::no_space: return "no_space";
    case Errc::unsupported: return "unsupported";
    case Errc::timeout: return "timeout";
    case Errc::internal: return "internal";
  }
  return "unknown";
}

const std::string& Status::message() const noexcept {
  static const std::string kEmpty;
  return rep_ ? rep_->message : kEmpty;
}

std::string Status::to_string() const {
  if (ok()) return "ok";
  return cat(errc_name(rep_->code), ": ", rep_->message);
}

std::string Status::to_string_with_location() const {
  if (ok()) return "ok";
  return cat(to_string(), " [", rep_->where.file_name(), ":", rep_->where.line(), "]");
}

Status& Status::prefix(std::string_view context) {
  if (rep_) rep_->message = cat(context, ": ", rep_->message);
  return *this;
}

void die_on_bad_access(const Status& status) {
  std::fprintf(stderr, "osmp: value() of a failed Result: %s\n", status.to_string_with_location().c_str());
  std::abort();
}

}  // namespace osmp
