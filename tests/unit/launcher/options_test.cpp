#include "launcher/options.hpp"

#include <gtest/gtest.h>

namespace osmp {
namespace {

Result<LaunchOptions> parse(std::vector<std::string> a) { return parse_launch_options(a); }

TEST(LaunchOptions, Full) {
  auto o =
      parse({"-n",         "8",    "--map-by", "numa",    "--bind-to", "l3",    "--oversubscribe", "--report-bindings",
             "--topology", "rome", "--vh",     "auto",    "--wait",    "yield", "--timeout",       "2.5",
             "--grace",    "0.5",  "-x",       "FOO=bar", "-x",        "PATH",  "--tag-output",    "prog",
             "-n",         "3",    "--x"});
  ASSERT_TRUE(o.ok()) << o.status().to_string();
  EXPECT_EQ(o->np, 8);
  EXPECT_EQ(o->map_by, MapBy::numa);
  EXPECT_EQ(o->binding(), BindTo::l3);
  EXPECT_TRUE(o->oversubscribe && o->report_bindings && o->tag_output);
  EXPECT_EQ(o->topology, "rome");
  EXPECT_EQ(*o->vh, "auto");
  EXPECT_EQ(*o->wait, "yield");
  EXPECT_DOUBLE_EQ(o->timeout_s, 2.5);
  EXPECT_DOUBLE_EQ(o->grace_s, 0.5);
  EXPECT_EQ(o->env, (std::vector<std::string>{"FOO=bar", "PATH"}));
  // Everything after the program belongs to the program.
  EXPECT_EQ(o->argv, (std::vector<std::string>{"prog", "-n", "3", "--x"}));
}

TEST(LaunchOptions, Defaults) {
  auto o = parse({"-n", "2", "prog"});
  ASSERT_TRUE(o.ok());
  EXPECT_EQ(o->map_by, MapBy::core);
  EXPECT_EQ(o->binding(), BindTo::core);
  EXPECT_FALSE(o->oversubscribe);
  EXPECT_DOUBLE_EQ(o->grace_s, 2);
  EXPECT_EQ(parse({"-n", "2", "--map-by", "pu", "prog"})->binding(), BindTo::pu);
  EXPECT_EQ(parse({"-n", "2", "--", "-prog"})->argv.front(), "-prog");
}

TEST(LaunchOptions, ErrorsNameTheOption) {
  struct Case {
    std::vector<std::string> args;
    const char* text;
  };
  for (const auto& c : std::vector<Case>{
           {{}, "no program"},
           {{"prog"}, "-n N"},
           {{"-n", "0", "prog"}, "out of range"},
           {{"-n", "two", "prog"}, "'two' is not an integer"},
           {{"-n"}, "-n needs a value"},
           {{"-n", "2", "--map-by", "diagonal", "prog"}, "unknown mapping 'diagonal'"},
           {{"-n", "2", "--bind-to", "cache", "prog"}, "unknown binding 'cache'"},
           {{"-n", "2", "--timeout", "-1", "prog"}, "--timeout: '-1'"},
           {{"-n", "2", "-x", "=v", "prog"}, "-x: '=v'"},
           {{"-n", "2", "--bogus", "prog"}, "unknown option '--bogus'"},
       }) {
    auto o = parse(c.args);
    ASSERT_FALSE(o.ok()) << c.text;
    EXPECT_NE(o.status().message().find(c.text), std::string::npos) << o.status().message();
  }
  EXPECT_TRUE(parse({"--help"})->help);
}

}  // namespace
}  // namespace osmp
