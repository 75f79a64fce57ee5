"""Shared helpers for the wrk benchmarks in bench/: parse one wrk run, summarise rounds side by side.

  wrkstat.py row SERVER TAG CONNS ROUND CPU_TICKS CLK_TCK < wrk-output     → one TSV row on stdout
  wrkstat.py table RESULTS.tsv REFERENCE                                    → markdown table with ratios

A row: server, tag (what was fetched), conns, round, req/s, p50 µs, p99 µs, server CPU µs/request, socket
errors + timeouts, non-2xx/3xx answers, requests. The table prints medians over rounds (min–max CPU) and the
ratios of every other server to REFERENCE; it exits 1 when any run had errors or non-2xx answers (a starved
connection shows up as a wrk timeout).
"""
import re
import statistics
import sys
from collections import defaultdict


def duration_us(text):
    match = re.match(r"([\d.]+)(us|ms|s|m|h)$", text)
    if not match:
        sys.stderr.write("unparsed latency %r in wrk output\n" % text)
        return float("nan")
    value, unit = match.groups()
    return float(value) * {"us": 1, "ms": 1e3, "s": 1e6, "m": 6e7, "h": 3.6e9}[unit]


def row(server, tag, conns, rnd, ticks, hz, out):
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
    total = int(re.search(r"(\d+) requests in", out).group(1))
    p50_match = re.search(r"^\s*50%\s+(\S+)", out, re.M)
    p99_match = re.search(r"^\s*99%\s+(\S+)", out, re.M)
    if not p50_match or not p99_match:
        sys.stderr.write("no latency distribution in wrk output:\n%s\n" % out)
    p50 = duration_us(p50_match.group(1)) if p50_match else float("nan")
    p99 = duration_us(p99_match.group(1)) if p99_match else float("nan")
    errors = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", out)
    errs = sum(map(int, errors.groups())) if errors else 0
    non2xx = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    bad = int(non2xx.group(1)) if non2xx else 0
    cpu_us = int(ticks) / int(hz) * 1e6 / max(total, 1)
    return "\t".join(map(str, [server, tag, conns, rnd, rps, p50, p99, cpu_us, errs, bad, total]))


def table(path, reference):
    rows = [line.split("\t") for line in open(path).read().splitlines() if line.strip()]
    data = defaultdict(list)
    order = []
    failures = []
    for server, tag, conns, rnd, rps, p50, p99, cpu, errs, bad, total in rows:
        key = (tag, int(conns))
        if key not in order:
            order.append(key)
        data[(server, tag, int(conns))].append((float(rps), float(p50), float(p99), float(cpu)))
        if int(errs) or int(bad):
            failures.append(f"{server} {tag} c={conns} round {rnd}: {errs} socket errors/timeouts, {bad} non-2xx")
    servers = sorted({r[0] for r in rows}, key=lambda s: (s != reference, s))
    med = statistics.median
    print("| conns | request | server | req/s | p50 µs | p99 µs | CPU µs/req (min–max) | req/s ÷ ref | CPU ÷ ref | p99 ÷ ref |")
    print("|---:|---|---|---:|---:|---:|---|---:|---:|---:|")
    for tag, conns in sorted(order, key=lambda k: (k[1], order.index(k))):
        ref = data.get((reference, tag, conns))
        if ref:
            rr, _, rp99, rcpu = (med([x[i] for x in ref]) for i in range(4))
        for server in servers:
            runs = data.get((server, tag, conns))
            if not runs:
                continue
            r, p50, p99, cpu = (med([x[i] for x in runs]) for i in range(4))
            lo, hi = min(x[3] for x in runs), max(x[3] for x in runs)
            ratios = "| | |" if server == reference or not ref else f"| {r/rr:.2f} | {cpu/rcpu:.2f} | {p99/rp99:.2f} |"
            print(f"| {conns} | {tag} | {server} | {r:,.0f} | {p50:.0f} | {p99:.0f} | {cpu:.1f} ({lo:.1f}–{hi:.1f}) {ratios}")
    print()
    if failures:
        print("NOT EVERY CONNECTION SERVED / ERRORS:")
        print("\n".join(failures))
        return 1
    print("every run: 0 socket errors, 0 timeouts (no starved connection), 0 non-2xx")
    return 0


if __name__ == "__main__":
    if sys.argv[1] == "row":
        print(row(*sys.argv[2:8], sys.stdin.read()))
    elif sys.argv[1] == "table":
        sys.exit(table(sys.argv[2], sys.argv[3]))
