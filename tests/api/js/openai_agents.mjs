// OpenAI's Agents SDK (`@openai/agents`), unmodified, running an agent with a function
// tool through agentd's Responses API (docs/openai-compatible.md), run by
// tests/api/openai_agents_test.cpp with agentd in front of a fake OpenAI upstream.
// Environment: AGENTRT_BASE_URL (".../v1"), AGENTRT_TOKEN, AGENTRT_MODEL. The upstream
// calls get_weather when offered tools and the last message is the user's, and answers
// "Hello, world!" otherwise. Exits non-zero at the first check that fails.
import assert from "node:assert/strict";
import OpenAI from "openai";
import {
  Agent,
  run,
  tool,
  setDefaultOpenAIClient,
  setOpenAIAPI,
  setTracingDisabled,
} from "@openai/agents";
import { z } from "zod";

// Traces would go to OpenAI's servers, which the test does not reach.
setTracingDisabled(true);
const client = new OpenAI({
  baseURL: process.env.AGENTRT_BASE_URL,
  apiKey: process.env.AGENTRT_TOKEN,
  maxRetries: 0,
});
setDefaultOpenAIClient(client);
setOpenAIAPI("responses");

const cities = [];
const getWeather = tool({
  name: "get_weather",
  description: "The weather in a city",
  parameters: z.object({ city: z.string() }),
  execute: async ({ city }) => {
    cities.push(city);
    return `sunny in ${city}`;
  },
});
const agent = new Agent({
  name: "Weather",
  instructions: "Answer questions about the weather.",
  model: process.env.AGENTRT_MODEL,
  tools: [getWeather],
});

async function toolRun() {
  const result = await run(agent, "What is the weather in Paris?");
  assert.deepEqual(cities, ["Paris"]);
  assert.equal(result.finalOutput, "Hello, world!");
  assert.match(result.lastResponseId, /^resp_/);
  return result.lastResponseId;
}

async function streamedRun() {
  cities.length = 0;
  const result = await run(agent, "And in Rome?", { stream: true });
  let text = "";
  for await (const event of result.toTextStream()) text += event;
  await result.completed;
  assert.deepEqual(cities, ["Paris"]);
  assert.equal(result.finalOutput, "Hello, world!");
  assert.equal(text, "Hello, world!");
}

async function continuedRun(previousResponseId) {
  cities.length = 0;
  const result = await run(agent, "Thanks!", { previousResponseId });
  assert.equal(result.finalOutput, "Hello, world!");
}

for (const [name, check] of [
  ["toolRun", toolRun],
  ["streamedRun", streamedRun],
]) {
  try {
    const id = await check();
    console.log(`ok ${name}`);
    if (name === "toolRun") {
      await continuedRun(id);
      console.log("ok continuedRun");
    }
  } catch (error) {
    console.error(`FAILED ${name}:`, error);
    process.exit(1);
  }
}
