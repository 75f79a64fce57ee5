# Shared by scripts/scale-out-test and scripts/rolling-deploy-test (source it): flow-bff replicas on free
# loopback ports behind a real nginx, and a cleanup that stops everything they started.
#
#   replicas_init NAME          work directory /tmp/flow-bff-NAME.XXXXXX in $work, $bin, nginx installed, EXIT trap
#   port=$(free_port)           a loopback port nothing listens on now
#   wait_ready PORT             until GET /readyz answers 2xx (10 s at most)
#   start_nginx PORT NEXT UPSTREAM_PORT...   round-robin proxy on PORT; NEXT is its proxy_next_upstream list; its
#                               access log ("$work/nginx/access.log") ends with the upstreams tried and their statuses
#   pids+=(PID); or write PID to "$work"/NAME.pid (for processes started in subshells): stopped on exit
#
# Everything is stopped with SIGTERM: nginx's master then stops its workers (a SIGKILLed master leaves its worker
# running, holding the port and the caller's stdout, which kept a CI pipe open), flow-bff drains and exits.

replicas_init() {
    if ! command -v nginx >/dev/null; then
        local sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
        $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq nginx-light >/dev/null
    fi
    [ -x .build/debug/flow-bff ] || swift build --product flow-bff
    bin=$PWD/.build/debug/flow-bff
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
