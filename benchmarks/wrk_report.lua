-- wrk script of benchmarks/run.py: the request comes from the environment (BENCH_METHOD, BENCH_BODY,
-- BENCH_HEADERS as "Name: value" lines), and the summary is one JSON line the runner reads.
wrk.method = os.getenv("BENCH_METHOD") or "GET"
local body = os.getenv("BENCH_BODY")
if body ~= nil and body ~= "" then
  wrk.body = body
end
for name, value in string.gmatch(os.getenv("BENCH_HEADERS") or "", "([^:\n]+):%s*([^\n]*)") do
  wrk.headers[name] = value
end

done = function(summary, latency, requests)
  local errors = summary.errors
  io.write(string.format(
    'BENCH {"requests": %d, "duration_us": %d, "non_2xx": %d, "socket_errors": %d, "p50_us": %d, "p99_us": %d}\n',
    summary.requests, summary.duration, errors.status,
    errors.connect + errors.read + errors.write + errors.timeout,
    latency:percentile(50), latency:percentile(99)))
end
