"""Writes the JSON files the wrk benchmarks serve: DIR/NAME.json of exactly the named size (2k, 20k, 200k), an
array of product-like items padded with a trailing string field, the same bytes on every run (seeded).

  json-files.py DIR 2k 20k 200k
"""
import json
import random
import sys

directory, names = sys.argv[1], sys.argv[2:]
sizes = {"2k": 2048, "20k": 20480, "200k": 204800}
random.seed(7)
for name, size in ((name, sizes[name]) for name in ("2k", "20k", "200k") if name in names):
    items, i = [], 0
    while True:
        items.append({"id": i, "title": "Item %d" % i, "price": round(random.random() * 100, 2),
                      "tags": random.sample(["new", "sale", "eco", "gift", "top"], 2), "stock": random.randint(0, 500)})
        text = json.dumps(items, separators=(",", ":"))
        if len(text) >= size:
            break
        i += 1
    # pad with a trailing string field so the file is exactly `size` bytes and valid JSON
    items.pop()
    text = json.dumps(items, separators=(",", ":"))
    pad = size - len(text) - len(',{"pad":""}')
    items.append({"pad": "x" * pad})
    text = json.dumps(items, separators=(",", ":"))
    assert len(text) == size, (name, len(text))
    open("%s/%s.json" % (directory, name), "w").write(text)
