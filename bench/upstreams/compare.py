"""compare.py FLOW.json GO.json: fail if flow-bff's page is degraded; print the two compositions' ids side by side."""
import json, sys

def ids(node, out):
    if isinstance(node, dict):
        if "id" in node: out.append(node["id"])
        for key in sorted(node): ids(node[key], out)
    elif isinstance(node, list):
        for item in node: ids(item, out)
    return out

flow, go = (json.load(open(p)) for p in sys.argv[1:3])
for name, doc in (("flow-bff", flow), ("go", go)):
    if doc.get("degradations"):
        sys.exit(f"{name} page is degraded: {doc['degradations']}")
a, b = ids(flow, []), ids(go, [])
print(f"flow-bff ids: {' '.join(a)}")
print(f"go ids:       {' '.join(b)}")
strip = lambda d: {**d, "page": {k: v for k, v in d["page"].items() if k != "pagination"}}
print("same ids: %s; same JSON apart from the cursor: %s; no degradations" % (a == b, strip(flow) == strip(go)))
