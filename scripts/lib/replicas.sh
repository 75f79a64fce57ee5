# Shared by scripts/scale-out-test and scripts/rolling-deploy-test (source it): flow-bff replicas on free
# loopback ports behind a real nginx, and a cleanup that stops everything they started.
#
#   replicas_init NAME          work directory /tmp/flow-bff-NAME.XXXXXX in $work, $bin, nginx installed, EXIT trap
#   port=$(free_port)           a loopback port nothing listens on now
#   wait_ready PORT             until GET /readyz answers 2xx (10 s at most)
#   start_nginx PORT NEXT UPSTREAM_PORT...   round-robin proxy on PORT; NEXT is its proxy_next_upstream list; its
#                               access log ("$work/nginx/access.log") ends with the upstreams tried and their statuses
#   start_haproxy PORT STATS_PORT NAME:PORT:CHECK_PORT...   round-robin HAProxy on PORT (installed when missing)
#                               that health-checks GET /readyz on each CHECK_PORT every 0.5 s (down after 1 failure,
#                               up after 2 successes) and never retries a request on another server; one line per
#                               request in "$work/haproxy/access.log": "req STATUS TERMINATION SERVER METHOD URI"
#   wait_balancer_up STATS_PORT NAME    until HAProxy's health check has NAME up again (10 s at most)
#   pids+=(PID); or write PID to "$work"/NAME.pid (for processes started in subshells): stopped on exit
#
# Everything is stopped with SIGTERM: nginx's master then stops its workers (a SIGKILLed master leaves its worker
# running, holding the port and the caller's stdout, which kept a CI pipe open), flow-bff drains and exits.
# Replicas drain at once (FLOW_BFF_SERVER_SHUTDOWN_GRACE_SECONDS=0): nginx here does not probe readiness, so
# config/production.json's grace period would only slow these tests; scripts/rolling-deploy-test sets its own.

replicas_init() {
    if ! command -v nginx >/dev/null; then
        local sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
        $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq nginx-light >/dev/null
    fi
    [ -x .build/debug/flow-bff ] || swift build --product flow-bff
    bin=$PWD/.build/debug/flow-bff
    export FLOW_BFF_SERVER_SHUTDOWN_GRACE_SECONDS=0
    work=$(mktemp -d "/tmp/flow-bff-$1.XXXXXX")
    chmod 755 "$work"
    pids=()
    trap replicas_cleanup EXIT
}

replicas_cleanup() {
    local all=("${pids[@]}") pid
    for file in "$work"/*.pid; do [ -e "$file" ] && all+=("$(cat "$file")"); done
    for pid in "${all[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
    for _ in $(seq 1 100); do   # 10 s at most; whatever is left then is killed
        local alive=0
        for pid in "${all[@]}"; do kill -0 "$pid" 2>/dev/null && alive=1; done
        [ "$alive" -eq 0 ] && break
        sleep 0.1
    done
    for pid in "${all[@]}"; do kill -KILL "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true
    rm -rf "$work"
}

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

wait_ready() {
    for _ in $(seq 1 100); do curl -fs -o /dev/null "http://127.0.0.1:$1/readyz" && return 0; sleep 0.1; done
    return 1
}

start_nginx() { # port next-upstream upstream-port...
    local port=$1 next=$2; shift 2
    local servers="" upstream
    for upstream in "$@"; do servers+="server 127.0.0.1:$upstream max_fails=0; "; done
    mkdir -p "$work/nginx"
    cat >"$work/nginx/nginx.conf" <<CONF
worker_processes 1;
daemon off;
pid $work/nginx/nginx.pid;
error_log $work/nginx/error.log warn;
events { worker_connections 1024; }
http {
    # combined (field 9 is the status), then the upstreams tried and what each answered: "a:1, b:2" "502, 200"
    log_format upstreams '\$remote_addr - \$remote_user [\$time_local] "\$request" \$status \$body_bytes_sent '
                         '"\$http_referer" "\$http_user_agent" "\$upstream_addr" "\$upstream_status"';
    access_log $work/nginx/access.log upstreams;
    upstream flow_bff { $servers}
    server {
        listen 127.0.0.1:$port;
        location / {
            proxy_pass http://flow_bff;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            proxy_next_upstream $next;
        }
    }
}
CONF
    nginx -p "$work/nginx" -c "$work/nginx/nginx.conf" </dev/null >>"$work/nginx/stdout.log" 2>&1 &
    pids+=($!)
    wait_ready "$port" || { cat "$work/nginx/error.log"; return 1; }
}

start_haproxy() { # port stats-port name:port:check-port...
    local port=$1 stats=$2; shift 2
    if ! command -v haproxy >/dev/null; then
        local sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
        $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq haproxy >/dev/null
    fi
    local servers="" entry name upstream check
    for entry in "$@"; do
        IFS=: read -r name upstream check <<<"$entry"
        servers+="    server $name 127.0.0.1:$upstream check port $check"$'\n'
    done
    mkdir -p "$work/haproxy"
    cat >"$work/haproxy/haproxy.cfg" <<CONF
global
    log stdout format raw local0
defaults
    mode http
    log global
    # one line per request: status (-1: none), termination state (-- when normal), server, method, path
    log-format "req %ST %ts %s %HM %HU"
    timeout connect 2s
    timeout client 30s
    timeout server 30s
    # No retry on another server: a request sent to a replica that refuses it fails, so the count of failed
    # requests shows whether the health check took the replica out first.
    retries 0
frontend lb
    bind 127.0.0.1:$port
    default_backend flow_bff
backend flow_bff
    balance roundrobin
    option httpchk
    http-check send meth GET uri /readyz
    http-check expect status 200
    default-server inter 500ms fall 1 rise 2
$servers
listen stats
    bind 127.0.0.1:$stats
    no log
    stats enable
    stats uri /stats
CONF
    haproxy -db -f "$work/haproxy/haproxy.cfg" </dev/null >>"$work/haproxy/access.log" 2>>"$work/haproxy/error.log" &
    pids+=($!)
    wait_ready "$port" || { cat "$work/haproxy/error.log"; return 1; }
}

wait_balancer_up() { # stats-port name
    for _ in $(seq 1 100); do
        curl -fs "http://127.0.0.1:$1/stats;csv" | awk -F, -v name="$2" '$1 == "flow_bff" && $2 == name && $18 == "UP" { found = 1 } END { exit !found }' \
            && return 0
        sleep 0.1
    done
    return 1
}
