-- wrk script of bench/run.sh: POSTs one JSON body, and prints one JSON line of results.
--
--   BENCH_BODY_FILE  file with the request body (required)
--   BENCH_HEADERS    extra headers, "Name: value" separated by "|" (optional)
--   BENCH_SESSIONS   N: each request names the next of N sessions of its wrk thread
--                    instead of the body's "session_id":"long", so that many connections
--                    each continue sessions of their own (optional). A request slower
--                    than N others of its thread meets the next one on its session,
--                    refused as busy: at 32 connections a thread, N=64 had 361 of 28,000
--                    refused, N=512 none.
--   BENCH_BODY2_FILE a second body: requests alternate between the two, each pair on a
--                    session of its own ("session_id":"pair" in either body becomes
--                    "<BENCH_PAIR_PREFIX>-<thread>-<n>"; name each run's prefix anew, or
--                    a later run continues an earlier one's sessions), a conversation
--                    turn and the turn answering it. Needs one connection a wrk thread,
--                    so that a pair's second request follows its first (optional).
--
-- The line printed by done(): requests, duration, requests/s, errors (wrk's socket
-- errors plus "status", the responses >= 400) and latency percentiles in microseconds.
--
-- Two sets of percentiles, because wrk's own are not the latencies it measured:
-- before done() runs, wrk 4.x corrects its histogram for "coordinated omission"
-- (stats_correct in wrk.c): for every response slower than twice the mean interval
-- between requests of a connection, it adds a synthetic sample per interval the stall
-- covered, as if requests had kept arriving at that rate. At one connection a stall of
-- 5 ms with responses 0.2 ms apart thus counts 25 times. That figure is kept as
-- "latency_us_wrk"; "latency_us" holds the latencies of the requests actually sent,
-- timed here (CLOCK_MONOTONIC around each request, through LuaJIT's ffi) when each
-- wrk thread drives one connection, so that requests and responses pair up. With more
-- connections than threads, "latency_us" is wrk's figure as well.

local ffi = require("ffi")
ffi.cdef [[
  typedef struct { long tv_sec; long tv_nsec; } bench_timespec;
  int clock_gettime(int clock, bench_timespec* ts);
]]
local CLOCK_MONOTONIC = 1
local now_ts = ffi.new("bench_timespec")
local function now_us()
  ffi.C.clock_gettime(CLOCK_MONOTONIC, now_ts)
  return tonumber(now_ts.tv_sec) * 1000000 + tonumber(now_ts.tv_nsec) / 1000
end

local body_file = assert(os.getenv("BENCH_BODY_FILE"), "BENCH_BODY_FILE is not set")
local f = assert(io.open(body_file, "rb"))
wrk.method = "POST"
wrk.body = f:read("*a")
f:close()
wrk.headers["Content-Type"] = "application/json"

local extra = os.getenv("BENCH_HEADERS") or ""
for header in string.gmatch(extra, "[^|]+") do
  local name, value = string.match(header, "^%s*([^:]+):%s*(.-)%s*$")
  if name then wrk.headers[name] = value end
end

-- Per wrk thread (each has its own Lua state): the send time of the request in flight
-- and a histogram of whole microseconds.
local prepared = nil
local sent_at = nil
hist = {}
answered = 0
-- A request sent while another was in flight, so requests and responses cannot be
-- paired. Only counted after a response: wrk asks thread 0 for one request at start
-- that it never sends (script_verify_request).
overlapped = false

local sessions = tonumber(os.getenv("BENCH_SESSIONS") or "0")
local turn = 0
local second_body = nil
local second_file = os.getenv("BENCH_BODY2_FILE")
if second_file then
  local f2 = assert(io.open(second_file, "rb"))
  second_body = f2:read("*a")
  f2:close()
end
-- Which of a pair goes next, and the pair's number. Advanced by response(), not by
-- request(): wrk asks thread 0 for one request at start that it never sends.
local pair_prefix = os.getenv("BENCH_PAIR_PREFIX") or "pair"
local second_next = false
local pair_number = 0

-- The next request: the one prepared once, or the body with the next session's id, or
-- the next of a pair's two bodies.
local function next_request()
  if second_body ~= nil then
    local session =
      string.format('"session_id":"%s-%d-%d"', pair_prefix, thread_id or 0, pair_number)
    local body = second_next and second_body or wrk.body
    return wrk.format(nil, nil, nil, (string.gsub(body, '"session_id":"pair"', session, 1)))
  end
  if sessions == 0 then
    if prepared == nil then prepared = wrk.format() end
    return prepared
  end
  turn = turn % sessions + 1
  local session = string.format('"session_id":"long-%d-%d"', thread_id or 0, turn)
  return wrk.format(nil, nil, nil, (string.gsub(wrk.body, '"session_id":"long"', session, 1)))
end

function request()
  local r = next_request()
  if sent_at ~= nil and answered > 0 then overlapped = true end
  sent_at = now_us()
  return r
end

function response()
  if second_body ~= nil then
    if second_next then pair_number = pair_number + 1 end
    second_next = not second_next
  end
  if sent_at ~= nil then
    local us = math.floor(now_us() - sent_at)
    hist[us] = (hist[us] or 0) + 1
    answered = answered + 1
    sent_at = nil
  end
end

local threads = {}
function setup(thread)
  table.insert(threads, thread)
  thread:set("thread_id", #threads)
end

-- Nearest-rank percentiles over the merged histograms, and the largest value.
local function exact_percentiles(merged, n)
  local values = {}
  for us in pairs(merged) do table.insert(values, us) end
  table.sort(values)
  local result, seen, sum = {}, 0, 0
  local wanted = { p50 = 0.50, p90 = 0.90, p99 = 0.99, p999 = 0.999 }
  for _, us in ipairs(values) do
    seen = seen + merged[us]
    sum = sum + us * merged[us]
    for name, q in pairs(wanted) do
      if result[name] == nil and seen >= math.ceil(q * n) then result[name] = us end
    end
  end
  result.max = values[#values]
  result.mean = sum / n
  return result
end

function done(summary, latency, requests)
  local seconds = summary.duration / 1e6
  local e = summary.errors
  local wrk_latency = string.format(
    '{"p50":%d,"p90":%d,"p99":%d,"max":%d,"mean":%.1f}',
    latency:percentile(50), latency:percentile(90), latency:percentile(99),
    latency.max, latency.mean)
  local exact = wrk_latency
  local merged, n, one_connection_each = {}, 0, #threads > 0
  for _, thread in ipairs(threads) do
    if thread:get("overlapped") then one_connection_each = false end
    for us, count in pairs(thread:get("hist") or {}) do
      merged[us] = (merged[us] or 0) + count
      n = n + count
    end
  end
  if one_connection_each and n > 0 then
    local p = exact_percentiles(merged, n)
    exact = string.format('{"p50":%d,"p90":%d,"p99":%d,"p999":%d,"max":%d,"mean":%.1f}',
      p.p50, p.p90, p.p99, p.p999, p.max, p.mean)
  end
  io.write(string.format(
    '{"requests":%d,"duration_s":%.3f,"rps":%.1f,' ..
    '"errors":{"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d},' ..
    '"latency_us":%s,"latency_us_wrk":%s,"timed":%d}\n',
    summary.requests, seconds, summary.requests / seconds,
    e.connect, e.read, e.write, e.status, e.timeout, exact, wrk_latency, n))
end
