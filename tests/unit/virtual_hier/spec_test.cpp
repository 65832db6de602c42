#include "virtual_hier/spec.hpp"

#include <gtest/gtest.h>

#include <cstdlib>

namespace osmp {
namespace {

TEST(Spec, ParsesItems) {
  auto s = parse_spec("L3:4, Package:2");
  ASSERT_TRUE(s.ok()) << s.status().to_string();
  ASSERT_EQ(s->items.size(), 2u);
  EXPECT_EQ(s->items[0].level, "L3Cache");
  EXPECT_EQ(s->items[0].value, 4);
  EXPECT_EQ(s->items[0].kind, SpecItem::Kind::degree);
  EXPECT_EQ(s->items[1].level, "Package");

  auto x = parse_spec("numa?10,socket:2");
  ASSERT_TRUE(x.ok());
  EXPECT_EQ(x->items[0].kind, SpecItem::Kind::max_members);
  EXPECT_EQ(x->items[0].level, "NUMANode");
  EXPECT_EQ(x->items[0].value, 10);

  auto a = parse_spec("auto");
  ASSERT_TRUE(a.ok());
  ASSERT_EQ(a->items.size(), 1u);
  EXPECT_EQ(a->items[0].level, "");
  EXPECT_EQ(a->items[0].value, kAutoMaxMembers);

  auto q = parse_spec("?6");
  ASSERT_TRUE(q.ok());
  EXPECT_EQ(q->items[0].value, 6);

  EXPECT_TRUE(parse_spec("")->empty());
  EXPECT_TRUE(parse_spec("none")->empty());
  EXPECT_EQ(parse_spec("Group1:3")->items[0].level, "Group1");
}

TEST(Spec, ErrorsNameTheBadToken) {
  struct Case {
    const char* spec;
    const char* token;
  };
  for (Case c : {Case{"Package:0", "Package:0"}, Case{"Package:x", "Package:x"}, Case{"Package", "Package"},
                 Case{"L3:4,,Package:2", "''"}, Case{":4", ":4"}, Case{"Package?1", "Package?1"},
                 Case{"Package:2,Socket:4", "Socket:4"}, Case{"auto,?8", "?8"}, Case{"Package:-2", "Package:-2"}}) {
    auto s = parse_spec(c.spec);
    ASSERT_FALSE(s.ok()) << c.spec;
    EXPECT_EQ(s.status().code(), Errc::invalid_argument);
    EXPECT_NE(s.status().message().find(c.token), std::string::npos) << c.spec << " -> " << s.status().message();
  }
}

TEST(Spec, FromEnvironment) {
  ::setenv("OSMP_VH", "Package:7", 1);
  auto s = spec_from_env();
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->items[0].value, 7);
  ::setenv("OSMP_VH", "Package:seven", 1);
  auto bad = spec_from_env();
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("OSMP_VH"), std::string::npos);
  ::unsetenv("OSMP_VH");
  EXPECT_TRUE(spec_from_env()->empty());
}

}  // namespace
}  // namespace osmp
