"""extra.py upstream UPSTREAM.tsv | overhead RESULTS.tsv DIRECT.tsv — bench/upstreams tables besides wrkstat's."""
import statistics, sys
from collections import defaultdict

med = statistics.median
if sys.argv[1] == "upstream":
    data = defaultdict(list)
    for line in open(sys.argv[2]).read().splitlines():
        server, tag, conns, _, per_s = line.split("\t")
        data[(int(conns), tag, server)].append(int(per_s))
    print("| conns | request | server | upstream calls/s |")
    print("|---:|---|---|---:|")
    for (conns, tag, server), v in sorted(data.items()):
        print(f"| {conns} | {tag} | {server} | {med(v):,.0f} |")
else:
    p50 = defaultdict(list)
    for path in sys.argv[2:4]:
        for line in open(path).read().splitlines():
            f = line.split("\t")
            if f[2] == "1": p50[(f[0], f[1])].append(float(f[5]))
    cat, rev = med(p50[("nginx", "catalog GET")]), med(p50[("nginx", "reviews GET")])
    print(f"direct nginx p50: catalog {cat:.0f}, reviews {rev:.0f}")
    for server in ("flow-bff", "go-net/http"):
        for tag in ("page plain", "page gzip"):
            c = med(p50[(server, tag)])
            print(f"{server} {tag}: p50 {c:.0f}; − max(catalog, reviews) = {c - max(cat, rev):.0f}; − (catalog + reviews) = {c - cat - rev:.0f}")
