# Shared by the wrk benchmarks in bench/ (source it; needs DURATION and ROOT set).

# nginx's static-file settings as a careful operator writes them (issue 19): descriptors and stat results cached,
# sendfile, an unbounded keep-alive budget. Each benchmark puts $NGINX_TUNED into its http { } block.
NGINX_TUNED='    open_file_cache max=1000 inactive=60s;
    open_file_cache_valid 60s;
    open_file_cache_min_uses 1;
    open_file_cache_errors on;
    sendfile on;
    tcp_nopush on;
    keepalive_requests 1000000;'

# A free TCP port on 127.0.0.1.
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

CLK_TCK=$(getconf CLK_TCK)

# User + system CPU ticks of a process so far.
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }

# measure OUTPUT SERVER TAG PID URL CONNS ENC ROUND   (WRK_SCRIPT=file.lua for a scripted request)
# One wrk run (wrk pinned to core 1, DURATION seconds, gzip when ENC is gzip) against URL, appending a
# bench/lib/wrkstat.py row with the server process PID's CPU time over the run to OUTPUT.
measure() {
    local output=$1 server=$2 tag=$3 pid=$4 url=$5 conns=$6 enc=$7 round=$8 header=() before after out
    [[ $enc == gzip ]] && header=(-H "Accept-Encoding: gzip")
    # WRK_SCRIPT: a wrk Lua script for requests that are not plain GETs (e.g. an action POST).
    [[ -n ${WRK_SCRIPT:-} ]] && header+=(-s "$WRK_SCRIPT")
    before=$(cpu_ticks "$pid")
    out=$(taskset -c 1 wrk -t1 -c"$conns" -d"${DURATION}s" --latency "${header[@]}" "$url")
    after=$(cpu_ticks "$pid")
    echo "$out" | python3 "$ROOT/bench/lib/wrkstat.py" row "$server" "$tag" "$conns" "$round" "$((after - before))" \
        "$CLK_TCK" >>"$output"
}
