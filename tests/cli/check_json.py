#!/usr/bin/env python3
"""check_json.py NPROCS COMMAND...: the JSON tree is well formed and consistent."""
import json, subprocess, sys

n = int(sys.argv[1])
doc = json.loads(subprocess.run(sys.argv[2:], check=True, capture_output=True, text=True).stdout)
assert doc["nprocs"] == n, doc["nprocs"]
domains = doc["domains"]
assert sorted(domains[0]["members"]) == list(range(n))
assert [r["rank"] for r in doc["ranks"]] == list(range(n))
for r in doc["ranks"]:
    path = r["path"]
    assert path[0] == r["leaf"] and path[-1] == 0
    for d in path:
        assert r["rank"] in domains[d]["members"]
for d in domains:
    if d["group"]:
        assert d["leader"] == d["group"][0] == min(d["members"])
        for c in d["children"]:
            assert domains[c]["leader"] in d["group"]
levels = {l["name"]: l for l in doc["levels"]}
assert sum(l["domains"] for l in doc["levels"]) == len(domains)
print("ok:", len(domains), "domains,", ", ".join(f'{k} {v["groups"]}' for k, v in levels.items()))
