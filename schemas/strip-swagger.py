#!/usr/bin/env python3
"""Rebuild schemas/k8s/swagger-v1.10.3.json from ../shared/schemas/k8s/ (the spec kf
generates ksonnet-lib from when an app has none).

Keeps what ksonnet-lib generation reads and nothing else:
- `info` and every definition, with descriptions removed, except that a description
  saying "read-only" stays as exactly "read-only" (ksonnet-lib leaves those fields out;
  a property *named* description is kept);
- of `paths`, each POST/PATCH/PUT operation's body parameter and its
  x-kubernetes-group-version-kind (they decide which definitions are top-level kinds);
- `x-kf-source-sha256`: the sha256 of the upstream file (ksonnet-lib's __ksonnet.checksum).
Run from the repo root:  python3 schemas/strip-swagger.py  (or pass SRC DEST).
"""
import hashlib
import json
import os
import sys

src = sys.argv[1] if len(sys.argv) > 1 else os.path.join("..", "shared", "schemas", "k8s", "swagger-v1.10.3.json")
dest = sys.argv[2] if len(sys.argv) > 2 else os.path.join("schemas", "k8s", "swagger-v1.10.3.json")


def reduce(v):
    if isinstance(v, dict):
        out = {}
        for k, x in v.items():
            if k == "description" and isinstance(x, str):
                if isinstance(x, str) and "read-only" in x.lower():
                    out[k] = "read-only"
                continue
            out[k] = reduce(x)
        return out
    if isinstance(v, list):
        return [reduce(x) for x in v]
    return v


raw = open(src, "rb").read()
spec = json.loads(raw)
paths = {}
for path, item in sorted(spec.get("paths", {}).items()):
    ops = {}
    for verb in ("post", "patch", "put"):
        op = item.get(verb)
        if not op:
            continue
        body = [
            {"name": p["name"], "schema": p["schema"]}
            for p in op.get("parameters", [])
            if p.get("name") == "body" and "schema" in p
        ]
        gvk = op.get("x-kubernetes-group-version-kind")
        if body and gvk:
            ops[verb] = {"parameters": body, "x-kubernetes-group-version-kind": gvk}
    if ops:
        paths[path] = ops
out = {
    "swagger": spec["swagger"],
    "info": spec["info"],
    "x-kf-source-sha256": hashlib.sha256(raw).hexdigest(),
    "paths": paths,
    "definitions": reduce(spec["definitions"]),
}
with open(dest, "w") as fh:
    fh.write(json.dumps(out, separators=(",", ":"), sort_keys=True) + "\n")
