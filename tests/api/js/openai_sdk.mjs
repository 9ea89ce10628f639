// The official `openai` npm SDK, unmodified, against agentd's OpenAI-compatible API
// (docs/openai-compatible.md), run by tests/api/openai_sdk_test.cpp with agentd in front
// of a fake OpenAI upstream. Environment: AGENTRT_BASE_URL (".../v1"), AGENTRT_TOKEN,
// AGENTRT_MODEL. The upstream answers "Hello, world!", and calls get_weather when
// offered tools and the last message is the user's. Exits non-zero at the first check
// that fails, saying which.
import assert from "node:assert/strict";
import OpenAI from "openai";

const baseURL = process.env.AGENTRT_BASE_URL;
const model = process.env.AGENTRT_MODEL;
// No retries: a refusal must reach the check as it is, once.
const client = new OpenAI({ baseURL, apiKey: process.env.AGENTRT_TOKEN, maxRetries: 0 });

const weather = {
  type: "function",
  function: {
    name: "get_weather",
    description: "The weather in a city",
    parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
  },
};

async function models() {
  const listed = [];
  for await (const m of client.models.list()) listed.push(m);
  assert.ok(listed.some((m) => m.id === model && m.object === "model"), JSON.stringify(listed));
  const one = await client.models.retrieve(model);
  assert.equal(one.id, model);
  assert.equal(typeof one.owned_by, "string");
}

async function completion() {
  const answer = await client.chat.completions.create({
    model,
    messages: [
      { role: "system", content: "Be brief." },
      { role: "user", content: "hello" },
    ],
    temperature: 0.2,
    max_completion_tokens: 64,
  });
  assert.match(answer.id, /^chatcmpl-/);
  assert.equal(answer.object, "chat.completion");
  assert.equal(answer.choices[0].message.role, "assistant");
  assert.equal(answer.choices[0].message.content, "Hello, world!");
  assert.equal(answer.choices[0].finish_reason, "stop");
  assert.equal(answer.usage.total_tokens, answer.usage.prompt_tokens + answer.usage.completion_tokens);
}

async function streamed() {
  const stream = await client.chat.completions.create({
    model,
    messages: [{ role: "user", content: "hello" }],
    stream: true,
    stream_options: { include_usage: true },
  });
  let text = "";
  let finish = null;
  let usage = null;
  for await (const chunk of stream) {
    assert.equal(chunk.object, "chat.completion.chunk");
    if (chunk.choices.length > 0) {
      text += chunk.choices[0].delta.content ?? "";
      finish = chunk.choices[0].finish_reason ?? finish;
    }
    if (chunk.usage) usage = chunk.usage;
  }
  assert.equal(text, "Hello, world!");
  assert.equal(finish, "stop");
  assert.ok(usage && usage.completion_tokens > 0, JSON.stringify(usage));
}

// The SDK's own stream helper puts the chunks back together, tool calls included.
async function streamedToolCall() {
  const runner = client.chat.completions.stream({
    model,
    messages: [{ role: "user", content: "Weather in Paris?" }],
    tools: [weather],
  });
  const final = await runner.finalChatCompletion();
  const call = final.choices[0].message.tool_calls[0];
  assert.equal(final.choices[0].finish_reason, "tool_calls");
  assert.equal(call.function.name, "get_weather");
  assert.deepEqual(JSON.parse(call.function.arguments), { city: "Paris" });
}

async function toolRoundTrip() {
  const messages = [{ role: "user", content: "Weather in Paris?" }];
  const first = await client.chat.completions.create({ model, messages, tools: [weather] });
  assert.equal(first.choices[0].finish_reason, "tool_calls");
  const asked = first.choices[0].message;
  assert.equal(asked.tool_calls.length, 1);
  messages.push(asked);
  for (const call of asked.tool_calls)
    messages.push({ role: "tool", tool_call_id: call.id, content: "sunny, 24C" });
  const second = await client.chat.completions.create({ model, messages, tools: [weather] });
  assert.equal(second.choices[0].finish_reason, "stop");
  assert.equal(second.choices[0].message.content, "Hello, world!");
}

async function rejects(promise, errorClass, status, check = () => {}) {
  try {
    await promise;
  } catch (e) {
    assert.ok(e instanceof errorClass, `${e.constructor.name}: ${e.message}`);
    assert.equal(e.status, status);
    check(e);
    return;
  }
  assert.fail(`no ${errorClass.name}`);
}

async function errors() {
  const stranger = new OpenAI({ baseURL, apiKey: "art_0000000000000000nope", maxRetries: 0 });
  await rejects(stranger.models.list(), OpenAI.AuthenticationError, 401, (e) =>
    assert.equal(e.type, "authentication_error"),
  );
  await rejects(
    client.chat.completions.create({ model, messages: [{ role: "user", content: "x" }], temperature: 5 }),
    OpenAI.BadRequestError,
    400,
    (e) => {
      assert.equal(e.param, "temperature");
      assert.equal(e.type, "invalid_request_error");
    },
  );
  await rejects(
    client.chat.completions.create({ model: "no-such-model", messages: [{ role: "user", content: "x" }] }),
    OpenAI.NotFoundError,
    404,
    (e) => assert.equal(e.code, "model_not_found"),
  );
  await rejects(client.models.retrieve("no-such-model"), OpenAI.NotFoundError, 404);
  await rejects(
    client.chat.completions.create({ model, messages: [{ role: "user", content: "x" }], stream: true, n: 3 }),
    OpenAI.BadRequestError,
    400,
    (e) => assert.equal(e.param, "n"),
  );
}

const checks = { models, completion, streamed, streamedToolCall, toolRoundTrip, errors };
for (const [name, check] of Object.entries(checks)) {
  try {
    await check();
    console.log(`ok ${name}`);
  } catch (e) {
    console.error(`FAILED ${name}: ${e.stack ?? e}`);
    process.exit(1);
  }
}
