// The shared heap's allocator and mappings (shm/heap.hpp), in one process.
#include "shm/heap.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>

namespace osmp {
namespace {

std::shared_ptr<Heap> make(std::size_t bytes) {
  auto h = Heap::create(shm_dir(), bytes);
  EXPECT_TRUE(h.ok()) << h.status().to_string();
  return h.ok() ? *h : nullptr;
}

TEST(Heap, FirstFitPagesAndCoalescing) {
  auto h = make(16 * kPageBytes);
  ASSERT_TRUE(h);
  EXPECT_EQ(h->size(), Heap::kFirst + 16 * kPageBytes);
  auto a = h->allocate(1);               // one page
  auto b = h->allocate(kPageBytes + 1);  // two
  auto c = h->allocate(3 * kPageBytes);
  ASSERT_TRUE(a.ok() && b.ok() && c.ok());
  auto* base = h->base();
  EXPECT_EQ(static_cast<std::byte*>(*a), base + Heap::kFirst);
  EXPECT_EQ(static_cast<std::byte*>(*b), base + Heap::kFirst + kPageBytes);
  EXPECT_EQ(static_cast<std::byte*>(*c), base + Heap::kFirst + 3 * kPageBytes);
  EXPECT_EQ(h->used(), 6 * kPageBytes);
  // Freeing a and b leaves a hole of three pages at the start, which a
  // three-page block fills exactly (first fit, coalesced).
  ASSERT_TRUE(h->free(*a).ok());
  ASSERT_TRUE(h->free(*b).ok());
  auto d = h->allocate(3 * kPageBytes);
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(static_cast<std::byte*>(*d), base + Heap::kFirst);
  // The rest: 16 - 6 pages; 11 do not fit, 10 do.
  EXPECT_EQ(h->allocate(11 * kPageBytes).status().code(), Errc::no_space);
  auto e = h->allocate(10 * kPageBytes);
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(h->allocate(1).status().code(), Errc::no_space);
  // Everything back: one run of 16 pages again.
  for (void* p : {*c, *d, *e}) ASSERT_TRUE(h->free(p).ok());
  EXPECT_EQ(h->used(), 0u);
  auto all = h->allocate(16 * kPageBytes);
  EXPECT_TRUE(all.ok()) << all.status().to_string();
}

TEST(Heap, LocateOnlyInsideOneBlock) {
  auto h = make(8 * kPageBytes);
  ASSERT_TRUE(h);
  auto a = h->allocate(2 * kPageBytes);
  auto b = h->allocate(kPageBytes);
  ASSERT_TRUE(a.ok() && b.ok());
  auto* pa = static_cast<std::byte*>(*a);
  EXPECT_EQ(h->locate(pa, 2 * kPageBytes), Heap::kFirst);
  EXPECT_EQ(h->locate(pa + 100, 50), Heap::kFirst + 100);
  EXPECT_EQ(h->locate(pa + 100, 2 * kPageBytes), Heap::kNowhere);                      // runs into the next block
  EXPECT_EQ(h->locate(h->base() + Heap::kFirst + 3 * kPageBytes, 1), Heap::kNowhere);  // free space
  EXPECT_EQ(h->locate(h->base(), 8), Heap::kNowhere);                                  // the header
  int outside = 0;
  EXPECT_EQ(h->locate(&outside, sizeof outside), Heap::kNowhere);
  ASSERT_TRUE(h->free(*a).ok());
  EXPECT_EQ(h->locate(pa, 1), Heap::kNowhere);  // freed
}

TEST(Heap, FreeErrorsChangeNothing) {
  auto h = make(4 * kPageBytes);
  ASSERT_TRUE(h);
  auto a = h->allocate(2 * kPageBytes);
  ASSERT_TRUE(a.ok());
  auto* pa = static_cast<std::byte*>(*a);
  int outside = 0;
  EXPECT_NE(h->free(&outside).message().find("not in this heap"), std::string::npos);
  EXPECT_NE(h->free(pa + 8).message().find("inside the block"), std::string::npos);
  EXPECT_NE(h->free(h->base() + Heap::kFirst + 3 * kPageBytes).message().find("freed twice"), std::string::npos);
  EXPECT_EQ(h->used(), 2 * kPageBytes);
  EXPECT_EQ(h->allocate(0).status().code(), Errc::invalid_argument);
  ASSERT_TRUE(h->free(pa).ok());
  EXPECT_EQ(h->free(pa).code(), Errc::invalid_argument);
}

// A freed block's pages go back to the system (zeros when used again); a
// retired block's never return to the free list.
TEST(Heap, FreedPagesAreGivenBackRetiredOnesKept) {
  auto h = make(2 * kPageBytes);
  ASSERT_TRUE(h);
  auto a = h->allocate(kPageBytes);
  ASSERT_TRUE(a.ok());
  std::memset(*a, 0x5a, kPageBytes);
  ASSERT_TRUE(h->free(*a).ok());
  auto b = h->allocate(kPageBytes);
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(*b, *a);
  EXPECT_EQ(static_cast<unsigned char*>(*b)[0], 0);
  ASSERT_TRUE(h->retire(*b).ok());
  EXPECT_EQ(h->used(), 0u);
  auto c = h->allocate(kPageBytes);
  ASSERT_TRUE(c.ok());
  EXPECT_NE(*c, *b);
  EXPECT_EQ(h->allocate(1).status().code(), Errc::no_space);
}

// Peers' views: this process's own heap by its handle, bounds of at().
TEST(Heap, PeersSeeOffsetsWithinTheMappedSizeOnly) {
  auto h = make(4 * kPageBytes);
  ASSERT_TRUE(h);
  std::vector<SegmentHandle> handles = {h->handle(), SegmentHandle{}};
  auto v = HeapPeers::attach(handles, 1, nullptr);  // rank 1 without a heap, seeing rank 0's
  ASSERT_TRUE(v.ok()) << v.status().to_string();
  EXPECT_FALSE(v->complete());
  EXPECT_EQ(v->size(0), h->size());
  EXPECT_EQ(v->size(1), 0u);
  auto a = h->allocate(kPageBytes);
  ASSERT_TRUE(a.ok());
  std::memcpy(*a, "osmp", 5);
  const std::uint64_t off = h->locate(*a, 5);
  std::byte* seen = v->at(0, off, 5);
  ASSERT_NE(seen, nullptr);
  EXPECT_STREQ(reinterpret_cast<const char*>(seen), "osmp");  // another mapping of the same pages
  EXPECT_EQ(v->at(0, off, h->size()), nullptr);               // past the end
  EXPECT_EQ(v->at(0, 8, 8), nullptr);                         // the header
  EXPECT_EQ(v->at(1, Heap::kFirst, 1), nullptr);              // no heap
}

}  // namespace
}  // namespace osmp
