#!/usr/bin/env python3
"""The schemas kf embeds are exact copies of the upstream ones in ../shared/schemas.

Run from the repo root (needs PyYAML). `cargo test` never reads ../shared; this is the
check that the copies it uses instead are still upstream's:

1. every CRD in registry/kubeflow/*/crds/*.json equals the upstream CRD of that name;
2. schemas/crds/*.json is exactly what schemas/strip-crds.py makes from upstream today;
3. schemas/k8s/swagger-v1.10.3.json is what schemas/strip-swagger.py makes of the shared spec.

Prints one line per difference and exits 1 if there is any.
"""
import glob
import json
import os
import subprocess
import sys
import tempfile

import yaml

SHARED = os.path.join("..", "shared", "schemas")
failures = []


def upstream_crds():
    crds = {}
    for path in sorted(glob.glob(os.path.join(SHARED, "crds", "*.yaml"))):
        with open(path) as fh:
            for doc in yaml.safe_load_all(fh):
                if doc and doc.get("kind") == "CustomResourceDefinition":
                    crds[doc["metadata"]["name"]] = (path, doc)
    return crds


def check_registry_crds(crds):
    for path in sorted(glob.glob("registry/kubeflow/*/crds/*.json")):
        with open(path) as fh:
            data = json.load(fh)
        for obj in data if isinstance(data, list) else [data]:
            name = obj["metadata"]["name"]
            if name not in crds:
                failures.append(f"{path}: CRD {name} has no upstream copy in {SHARED}/crds")
            elif crds[name][1] != obj:
                failures.append(f"{path}: CRD {name} differs from {crds[name][0]}")


def check_stripped_crds():
    with tempfile.TemporaryDirectory() as tmp:
        os.makedirs(os.path.join(tmp, "repo", "schemas", "crds"))
        os.symlink(os.path.abspath("registry"), os.path.join(tmp, "repo", "registry"))
        os.symlink(os.path.abspath(os.path.join("..", "shared")), os.path.join(tmp, "shared"))
        subprocess.run(
            [sys.executable, os.path.abspath("schemas/strip-crds.py")],
            cwd=os.path.join(tmp, "repo"),
            check=True,
        )
        made = sorted(os.listdir(os.path.join(tmp, "repo", "schemas", "crds")))
        have = sorted(os.path.basename(p) for p in glob.glob("schemas/crds/*.json"))
        for name in sorted(set(made) | set(have)):
            if name not in have:
                failures.append(f"schemas/crds/{name}: missing (upstream has it)")
            elif name not in made:
                failures.append(f"schemas/crds/{name}: no upstream source any more")
            else:
                with open(os.path.join(tmp, "repo", "schemas", "crds", name)) as a:
                    with open(os.path.join("schemas", "crds", name)) as b:
                        if a.read() != b.read():
                            failures.append(
                                f"schemas/crds/{name}: stale; run python3 schemas/strip-crds.py"
                            )


def check_swagger():
    ours = "schemas/k8s/swagger-v1.10.3.json"
    with tempfile.TemporaryDirectory() as tmp:
        made = os.path.join(tmp, "swagger.json")
        subprocess.run(
            [sys.executable, "schemas/strip-swagger.py",
             os.path.join(SHARED, "k8s", "swagger-v1.10.3.json"), made],
            check=True,
        )
        with open(made) as a, open(ours) as b:
            if a.read() != b.read():
                failures.append(f"{ours}: stale; run python3 schemas/strip-swagger.py")


check_registry_crds(upstream_crds())
check_stripped_crds()
check_swagger()
for f in failures:
    print(f)
print(f"schemas: {len(failures)} difference(s) from upstream")
sys.exit(1 if failures else 0)
