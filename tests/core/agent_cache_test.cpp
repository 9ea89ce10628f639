// The agent cache answers as the store would: a change forgets the agent, a cell's
// deletion its agents, and a read that a change may have overtaken is not kept. And
// the service's updates, which the cache must not make racy.
#include "core/agents/agent_cache.h"
#include "core/agents/agent_service.h"
#include "core/cells/cell_service.h"
#include "tests/core/temp_dir.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <thread>
#include <vector>

namespace agentrt::core {
namespace {

std::shared_ptr<const Agent> an_agent(const std::string& cell, const std::string& id,
                                      const std::string& prompt) {
  Agent agent;
  agent.cell = cell;
  agent.id = id;
  agent.system_prompt = prompt;
  return std::make_shared<const Agent>(std::move(agent));
}

TEST(AgentCache, KeepsAnAgentUntilItOrItsCellIsForgotten) {
  AgentCache cache;
  cache.remember(an_agent("a", "x", "one"), cache.changes());
  cache.remember(an_agent("a", "y", "two"), cache.changes());
  cache.remember(an_agent("b", "x", "three"), cache.changes());
  ASSERT_TRUE(cache.find("a", "x"));
  EXPECT_EQ(cache.find("a", "x")->system_prompt, "one");
  EXPECT_EQ(cache.find("b", "x")->system_prompt, "three");
  EXPECT_FALSE(cache.find("a", "z"));
  cache.forget("a", "x");
  EXPECT_FALSE(cache.find("a", "x"));
  EXPECT_TRUE(cache.find("a", "y"));
  cache.forget_cell("a");
  EXPECT_FALSE(cache.find("a", "y"));
  EXPECT_TRUE(cache.find("b", "x")) << "another cell's stays";
}

// A lookup read the store, then a change was committed and forgotten before the lookup
// kept what it read: that may be the agent as it was, so it is not kept.
TEST(AgentCache, AReadOvertakenByAChangeIsNotKept) {
  AgentCache cache;
  const uint64_t before = cache.changes();
  cache.forget("a", "x");
  cache.remember(an_agent("a", "x", "old"), before);
  EXPECT_FALSE(cache.find("a", "x"));
  const uint64_t again = cache.changes();
  cache.forget_cell("elsewhere");
  cache.remember(an_agent("a", "x", "old"), again);
  EXPECT_FALSE(cache.find("a", "x")) << "any change, as the cache cannot tell which";
  cache.remember(an_agent("a", "x", "new"), cache.changes());
  EXPECT_EQ(cache.find("a", "x")->system_prompt, "new");
}

TEST(AgentCache, StartsAgainEmptyPastItsCapacity) {
  AgentCache cache(2);
  cache.remember(an_agent("a", "1", ""), cache.changes());
  cache.remember(an_agent("a", "2", ""), cache.changes());
  cache.remember(an_agent("a", "3", ""), cache.changes());
  EXPECT_FALSE(cache.find("a", "1"));
  EXPECT_FALSE(cache.find("a", "2"));
  EXPECT_TRUE(cache.find("a", "3"));
}

// Through the service: reads after each change see it, the second read of an agent
// comes from memory, and ids are told apart by cell.
TEST(AgentCache, TheServiceReadsEachChangeBack) {
  test_util::TempDir dir;
  StateStore store(dir.path());
  CellService(store, /*single_cell=*/false).create({{"id", "a"}});
  AgentService agents(store);
  Agent made = agents.create("a", {{"name", "helper"}, {"system_prompt", "one"}});
  EXPECT_EQ(agents.find("a", made.id)->system_prompt, "one");
  // Behind the service's back (unsupported in agentd, here to prove the read is kept).
  store.write([&](Connection& db) {
    db.prepare("UPDATE agents SET system_prompt = 'behind' WHERE id = ?").bind(1, made.id).run();
  });
  EXPECT_EQ(agents.find("a", made.id)->system_prompt, "one") << "kept, not read again";
  EXPECT_FALSE(agents.find("b", made.id));
  agents.update("a", made.id, {{"system_prompt", "two"}});
  EXPECT_EQ(agents.find("a", made.id)->system_prompt, "two");
  agents.remove("a", made.id);
  EXPECT_FALSE(agents.find("a", made.id));
}

// Each update reads, changes and writes its agent in one transaction: updates of
// different fields at once all land.
TEST(AgentService, UpdatesAtOnceKeepEachOthersFields) {
  test_util::TempDir dir;
  StateStore store(dir.path());
  CellService(store, /*single_cell=*/false).create({{"id", "a"}});
  AgentService agents(store);
  const char* fields[] = {"model", "system_prompt", "description", "namespace"};
  for (int round = 0; round < 20; ++round) {
    Agent made = agents.create("a", {{"name", "helper" + std::to_string(round)}});
    std::vector<std::thread> writers;
    for (const char* field : fields)
      writers.emplace_back([&, field] {
        agents.update("a", made.id, {{field, std::string(field) + "-set"}});
      });
    for (std::thread& writer : writers) writer.join();
    const Agent now = *agents.find("a", made.id);
    EXPECT_EQ(now.model, "model-set") << "round " << round;
    EXPECT_EQ(now.system_prompt, "system_prompt-set") << "round " << round;
    EXPECT_EQ(now.description, "description-set") << "round " << round;
    EXPECT_EQ(now.namespace_, "namespace-set") << "round " << round;
  }
}

}  // namespace
}  // namespace agentrt::core
