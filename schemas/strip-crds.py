#!/usr/bin/env python3
"""Rebuild schemas/crds/*.json from ../shared/schemas/crds/*.yaml (needs PyYAML).

Keeps the CRDs that no registry package embeds, reduced to group, names, scope and each
version's openAPIV3Schema, with descriptions removed (a property named description stays). Run from the repo root:
    python3 schemas/strip-crds.py
"""
import glob
import json
import os

import yaml

SRC = os.path.join("..", "shared", "schemas", "crds")


def strip(v):
    # A description is a string; a property *named* description (WorkloadPriorityClass's)
    # is a schema, and stays.
    if isinstance(v, dict):
        return {
            k: strip(x)
            for k, x in v.items()
            if not (k == "description" and isinstance(x, str))
        }
    if isinstance(v, list):
        return [strip(x) for x in v]
    return v


covered = set()
for f in glob.glob("registry/kubeflow/*/crds/*.json"):
    d = json.load(open(f))
    for o in d if isinstance(d, list) else [d]:
        covered.add(o["metadata"]["name"])

for f in sorted(glob.glob(os.path.join(SRC, "*.yaml"))):
    out = []
    for d in yaml.safe_load_all(open(f)):
        if not d or d.get("kind") != "CustomResourceDefinition":
            continue
        if d["metadata"]["name"] in covered:
            continue
        versions = [
            {"name": v["name"], "schema": strip(v["schema"])}
            for v in d["spec"].get("versions", [])
            if v.get("schema")
        ]
        if not versions:
            continue
        out.append({
            "apiVersion": d["apiVersion"],
            "kind": "CustomResourceDefinition",
            "metadata": {"name": d["metadata"]["name"]},
            "spec": {
                "group": d["spec"]["group"],
                "names": d["spec"]["names"],
                "scope": d["spec"]["scope"],
                "versions": versions,
            },
        })
    if out:
        name = os.path.basename(f).replace(".yaml", ".json")
        with open(os.path.join("schemas", "crds", name), "w") as fh:
            fh.write(json.dumps(out, separators=(",", ":"), sort_keys=True) + "\n")
