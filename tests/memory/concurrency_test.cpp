// The plugin declares itself thread-safe, so the host calls it from many threads at
// once: reads run beside a writer and always see a consistent, growing store.
#include "memory_fixture.h"

#include <atomic>
#include <thread>

namespace agentrt::test {
namespace {

TEST_F(MemoryTest, ReadsRunConcurrentlyWithWrites) {
  open({{"checkpoint_pages", 100}});  // checkpoints all along, beside the reads
  constexpr int kWriters = 2, kPerWriter = 150, kReaders = 4;
  std::atomic<bool> writing{true};
  std::atomic<int> errors{0}, reads{0};
  std::vector<std::thread> threads;
  for (int w = 0; w < kWriters; ++w)
    threads.emplace_back([&, w] {
      for (int i = 0; i < kPerWriter; ++i) {
        try {
          save({{"actor", "w" + std::to_string(w)},
                {"layer", i % 2 ? "working" : "consensus"},
                {"content", "stream entry number " + std::to_string(i)}});
        } catch (...) {
          ++errors;
        }
      }
    });
  for (int r = 0; r < kReaders; ++r)
    threads.emplace_back([&] {
      int64_t last_total = 0;
      while (writing) {
        try {
          json c = count(filter("c1"));
          int64_t total = c["working"].get<int64_t>() + c["consensus"].get<int64_t>();
          if (total < last_total) ++errors;  // saves only: never shrinks
          last_total = total;
          json page = list(filter("c1"), "working", 20);
          for (const json& e : page["data"])
            if (e["layer"] != "working") ++errors;
          search(filter("c1"), "stream entry");
          ++reads;
        } catch (...) {
          ++errors;
        }
      }
    });
  for (int w = 0; w < kWriters; ++w) threads[static_cast<size_t>(w)].join();
  writing = false;
  for (size_t t = kWriters; t < threads.size(); ++t) threads[t].join();

  EXPECT_EQ(errors.load(), 0);
  EXPECT_GT(reads.load(), 0);
  json c = count(filter("c1"));
  EXPECT_EQ(c["working"].get<int>() + c["consensus"].get<int>(), kWriters * kPerWriter);
  EXPECT_EQ(list_all(filter("c1"), "working").size(), c["working"].get<size_t>());
}

}  // namespace
}  // namespace agentrt::test
