-- wrk script of bench/run.sh: POSTs one JSON body, and prints one JSON line of results.
--
--   BENCH_BODY_FILE  file with the request body (required)
--   BENCH_HEADERS    extra headers, "Name: value" separated by "|" (optional)
--
-- The line printed by done(): requests, duration, requests/s, errors (wrk's socket
-- errors plus "status", the responses >= 400) and latency percentiles in microseconds
-- (wrk keeps a histogram at 1 us resolution).

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

function done(summary, latency, requests)
  local seconds = summary.duration / 1e6
  local e = summary.errors
  io.write(string.format(
    '{"requests":%d,"duration_s":%.3f,"rps":%.1f,' ..
    '"errors":{"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d},' ..
    '"latency_us":{"p50":%d,"p90":%d,"p99":%d,"max":%d,"mean":%.1f}}\n',
    summary.requests, seconds, summary.requests / seconds,
    e.connect, e.read, e.write, e.status, e.timeout,
    latency:percentile(50), latency:percentile(90), latency:percentile(99),
    latency.max, latency.mean))
end
