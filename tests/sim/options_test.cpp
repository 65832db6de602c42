// osmp::Options: settings by name at creation and from the environment, per
// operation too; unknown names and bad values are errors that name them.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "api/access.hpp"
#include "team/team.hpp"
#include "team_api_harness.hpp"

namespace osmp {
namespace {

test::Config two() {
  test::Config c;
  c.name = "two";
  c.n = 2;
  return c;
}

// Every rank's creation status with `adjust` applied to its Options.
test::ThreadTeams teams_with(const std::function<void(Options&)>& adjust) { return test::make_teams(two(), adjust); }

TEST(Options, AnUnknownSettingIsAnErrorNamingIt) {
  auto tt = teams_with([](Options& o) { o.settings["OSMP_NO_SUCH_THING"] = "1"; });
  for (const Status& st : tt.status) {
    EXPECT_EQ(st.code(), Errc::invalid_argument);
    EXPECT_NE(st.message().find("OSMP_NO_SUCH_THING"), std::string::npos) << st.message();
  }
}

TEST(Options, ABadValueIsAnErrorNamingTheSetting) {
  for (const char* name : {"OSMP_WAIT", "OSMP_SLOT_SIZE", "OSMP_FLAT_MAX", "OSMP_CHECK"}) {
    auto tt = teams_with([&](Options& o) { o.settings[name] = "bogus"; });
    for (const Status& st : tt.status) {
      EXPECT_EQ(st.code(), Errc::invalid_argument) << name;
      EXPECT_NE(st.message().find(name), std::string::npos) << st.message();
    }
  }
}

TEST(Options, TeamAndCollectiveSettingsTakeEffect) {
  auto tt = teams_with([](Options& o) {
    o.settings["OSMP_SLOT_SIZE"] = "32K";
    o.settings["OSMP_VH"] = "?2";
    o.per_op[OpKind::bcast]["OSMP_DIRECT"] = "0";
  });
  ASSERT_TRUE(tt.ok()) << tt.first_error();
  for (const auto& t : tt.teams) {
    EXPECT_EQ(core_of(*t).options().slot_bytes, std::size_t{32} << 10);
    EXPECT_EQ(t->vh(OpKind::allreduce), "?2");
    EXPECT_NE(t->settings_text(OpKind::bcast), t->settings_text(OpKind::allreduce));
  }
}

// Sets environment variables for one test, and unsets them after.
class Env {
 public:
  Env(std::initializer_list<std::pair<const char*, const char*>> vars) {
    for (const auto& [k, v] : vars) {
      setenv(k, v, 1);
      names_.emplace_back(k);
    }
  }
  ~Env() {
    for (const auto& k : names_) unsetenv(k.c_str());
  }

 private:
  std::vector<std::string> names_;
};

TEST(Options, FromEnvReadsEverySettingAndThePerOperationOnes) {
  Env env({{"OSMP_SLOT_SIZE", "128K"},
           {"OSMP_CHECK", "strict"},
           {"OSMP_VH_BCAST", "?2"},
           {"OSMP_STAGE_MIN_ALLREDUCE", "256K"},
           {"OSMP_DIRECT_REDUCE_SCATTER_BLOCK", "0"}});
  auto o = Options::from_env();
  ASSERT_TRUE(o.ok()) << o.status().to_string();
  EXPECT_EQ(o->settings.at("OSMP_SLOT_SIZE"), "128K");
  EXPECT_EQ(o->settings.at("OSMP_CHECK"), "strict");
  EXPECT_EQ(o->per_op.at(OpKind::bcast).at("OSMP_VH"), "?2");
  EXPECT_EQ(o->per_op.at(OpKind::allreduce).at("OSMP_STAGE_MIN"), "256K");
  EXPECT_EQ(o->per_op.at(OpKind::reduce_scatter_block).at("OSMP_DIRECT"), "0");
  EXPECT_FALSE(o->tuning_file.empty());
}

TEST(Options, AnEmptyValueIsTheDefault) {
  Env env(
      {{"OSMP_FLAT_MAX", ""}, {"OSMP_CMA", ""}, {"OSMP_CHECK", ""}, {"OSMP_DIRECT_BCAST", ""}, {"OSMP_VH_REDUCE", ""}});
  auto o = Options::from_env();
  ASSERT_TRUE(o.ok()) << o.status().to_string();
  EXPECT_EQ(o->settings.count("OSMP_FLAT_MAX"), 0u);
  EXPECT_EQ(o->settings.count("OSMP_CMA"), 0u);
  EXPECT_EQ(o->per_op.count(OpKind::bcast), 0u);
  EXPECT_EQ(o->per_op.at(OpKind::reduce).at("OSMP_VH"), "");  // given: no virtual levels
  auto tt = teams_with([](Options& x) {
    x.settings["OSMP_ONE_PASS_MAX"] = "";
    x.settings["OSMP_SLOT_SIZE"] = "";
  });
  EXPECT_TRUE(tt.ok()) << tt.first_error();
}

TEST(Options, ABadPerOperationSettingFailsEveryTeamEvenOfOne) {
  for (int n : {1, 2}) {
    test::Config c = two();
    c.n = n;
    auto tt = test::make_teams(c, [](Options& o) { o.per_op[OpKind::gather]["OSMP_CMA"] = "0"; });
    for (const Status& st : tt.status) {
      EXPECT_EQ(st.code(), Errc::invalid_argument) << n;
      EXPECT_NE(st.message().find("gather"), std::string::npos) << st.message();
    }
  }
}

TEST(Options, FromEnvNamesTheVariableOfABadValue) {
  {
    Env env({{"OSMP_SLOT_SIZE", "lots"}});
    auto o = Options::from_env();
    ASSERT_FALSE(o.ok());
    EXPECT_NE(o.status().message().find("environment variable OSMP_SLOT_SIZE"), std::string::npos)
        << o.status().message();
  }
  {
    Env env({{"OSMP_FLAT_MAX_GATHER", "-3"}});
    auto o = Options::from_env();
    ASSERT_FALSE(o.ok());
    EXPECT_NE(o.status().message().find("OSMP_FLAT_MAX_GATHER"), std::string::npos) << o.status().message();
  }
}

}  // namespace
}  // namespace osmp
