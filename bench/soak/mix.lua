-- wrk script for bench/soak/run.sh: each connection cycles through ten requests, five first pages of the feed,
-- four next chunks (a cursor the server issued, SOAK_NEXT) and one api action (`cart.setQuantity`) with a fresh
-- `Idempotency-Key` (SOAK_ACTION_EVERY, default 10: one action in ten requests). done() prints one line that
-- run.sh parses.
local first, next
local every = tonumber(os.getenv("SOAK_ACTION_EVERY") or "10")
local body = '{"pageID":"cart","widgetID":"qty.p-1042","event":"change","value":3,"payload":{"productID":"p-1042"}}'
local counter = 0
local threadID = 0
local threads = {}

function setup(thread)
    thread:set("threadID", #threads + 1)
    table.insert(threads, thread)
end

-- Formatted here, not when the script loads: wrk sets the Host header only in its own init, just before this.
function init(args)
    first = wrk.format("GET", "/v1/pages/feed")
    next = wrk.format("GET", os.getenv("SOAK_NEXT"))
end

function request()
    counter = counter + 1
    local slot = counter % every
    if slot == 0 then
        return wrk.format("POST", "/v1/actions/cart.setQuantity", {
            ["Content-Type"] = "application/json",
            ["Idempotency-Key"] = "soak-" .. threadID .. "-" .. counter,
        }, body)
    elseif slot % 2 == 1 then
        return first
    else
        return next
    end
end

function done(summary, latency, requests)
    local e = summary.errors
    io.write(string.format(
        "soak-result requests=%d duration_us=%d bytes=%d connect=%d read=%d write=%d timeout=%d status=%d p50_us=%d p99_us=%d max_us=%d\n",
        summary.requests, summary.duration, summary.bytes, e.connect, e.read, e.write, e.timeout, e.status,
        latency:percentile(50), latency:percentile(99), latency.max))
end
