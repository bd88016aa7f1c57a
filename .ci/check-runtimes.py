#!/usr/bin/env python3
"""kf's training-runtimes prototype renders Kubeflow Trainer's standard
ClusterTrainingRuntimes as upstream ships them.

Usage: check-runtimes.py KF UPSTREAM_DIR

UPSTREAM_DIR holds upstream's runtime files (../shared/schemas/upstream/trainer-v2.3.0,
copies of kubeflow/trainer v2.3.0 manifests/base/runtimes/*.yaml). Each must match the
object kf renders under the same name, field for field, except two things kf adds on
purpose: the image tag of ghcr.io/kubeflow/trainer images (upstream's kustomization sets
it; kf pins the release) and the labels kf puts on every object it renders.
"""
import glob
import json
import os
import subprocess
import sys
import tempfile

import yaml


def strip(obj):
    """The object without what kf adds: image tags of Trainer's images, kf's labels."""
    if isinstance(obj, dict):
        out = {}
        for k, v in obj.items():
            if k == "image" and isinstance(v, str) and v.startswith("ghcr.io/kubeflow/trainer/"):
                v = v.rsplit(":", 1)[0] if ":" in v.split("/")[-1] else v
            out[k] = strip(v)
        return out
    if isinstance(obj, list):
        return [strip(v) for v in obj]
    return obj


def first_difference(a, b, path="$"):
    if type(a) is not type(b):
        return f"{path}: {a!r} vs {b!r}"
    if isinstance(a, dict):
        for k in sorted(set(a) | set(b)):
            if k not in a or k not in b:
                return f"{path}.{k}: only in {'kf' if k in a else 'upstream'}"
            d = first_difference(a[k], b[k], f"{path}.{k}")
            if d:
                return d
        return None
    if isinstance(a, list):
        if len(a) != len(b):
            return f"{path}: {len(a)} items vs {len(b)}"
        for i, (x, y) in enumerate(zip(a, b)):
            d = first_difference(x, y, f"{path}[{i}]")
            if d:
                return d
        return None
    return None if a == b else f"{path}: {a!r} vs {b!r}"


def main():
    kf, upstream_dir = sys.argv[1], sys.argv[2]
    kf = os.path.abspath(kf)
    with tempfile.TemporaryDirectory() as tmp:
        app = os.path.join(tmp, "app")
        subprocess.run([kf, "init", app], check=True, stdout=subprocess.DEVNULL)
        subprocess.run([kf, "generate", "training-runtimes", "runtimes"], cwd=app, check=True,
                       stdout=subprocess.DEVNULL)
        out = subprocess.run([kf, "show", "default", "-o", "json"], cwd=app, check=True,
                             capture_output=True, text=True).stdout
    rendered = {o["metadata"]["name"]: o for o in json.loads(out)["items"]}
    files = sorted(glob.glob(os.path.join(upstream_dir, "*.yaml")))
    if not files:
        sys.exit(f"check-runtimes: no runtime files in {upstream_dir}")
    failures = []
    for f in files:
        with open(f) as fh:
            want = yaml.safe_load(fh)
        name = want["metadata"]["name"]
        got = rendered.get(name)
        if got is None:
            failures.append(f"{os.path.basename(f)}: kf renders no runtime {name}")
            continue
        got = strip(got)
        # kf's own labels on every object: only upstream's must be there, unchanged.
        labels = got["metadata"].get("labels", {})
        for k, v in want["metadata"].get("labels", {}).items():
            if labels.get(k) != v:
                failures.append(f"{name}: label {k} is {labels.get(k)!r}, upstream {v!r}")
        got["metadata"]["labels"] = want["metadata"].get("labels", {})
        d = first_difference(got, want)
        if d:
            failures.append(f"{name}: {d} (kf vs {os.path.basename(f)})")
        else:
            print(f"check-runtimes: {name} matches {os.path.basename(f)}")
    if failures:
        print("\n".join(failures), file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
