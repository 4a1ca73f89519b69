#!/usr/bin/env python3
"""deploy/k8s against the Kubernetes OpenAPI schemas, offline (kubernetes-validate ships them).

    k8s_manifests_test.py DEPLOY_K8S_DIR

Every manifest must validate strictly (no unknown field) against the oldest Kubernetes it
targets (1.29: an Indexed Job's backoffLimitPerIndex is on by default from there) and the
newest the package knows; must set what gpubench and fleet.py rely on (a GPU request, NODE_NAME
and POD_NAME from the downward API); and broken copies of it must be rejected, so a validator
that accepts anything fails this test. Exit 77 (skipped) where kubernetes-validate or PyYAML is
missing, except under CI=true, where .ci/install provides them.
"""

import copy
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

OLDEST_VERSION = "1.29.0"
SKIP = 77

Manifest = dict[str, Any]


def pod_spec(manifest: Manifest) -> Manifest:
    return manifest["spec"]["template"]["spec"]


def container(manifest: Manifest) -> Manifest:
    return pod_spec(manifest)["containers"][0]


def misspelled_field(manifest: Manifest) -> None:
    pod_spec(manifest)["containres"] = pod_spec(manifest).pop("containers")


def gpu_count_not_a_quantity(manifest: Manifest) -> None:
    container(manifest)["resources"]["limits"]["nvidia.com/gpu"] = ["one"]


def env_without_name(manifest: Manifest) -> None:
    del container(manifest)["env"][0]["name"]


def restart_policy_unknown(manifest: Manifest) -> None:
    pod_spec(manifest)["restartPolicy"] = 17


BREAKAGES: dict[str, Callable[[Manifest], None]] = {
    "a misspelled field (containres)": misspelled_field,
    "nvidia.com/gpu given as a list": gpu_count_not_a_quantity,
    "an env entry without a name": env_without_name,
    "restartPolicy given as a number": restart_policy_unknown,
}


def check_contents(manifest: Manifest) -> list[str]:
    """What gpubench-pod, gpubench's context and fleet.py need from a manifest."""
    problems = []
    c = container(manifest)
    if "nvidia.com/gpu" not in c.get("resources", {}).get("limits", {}):
        problems.append("requests no nvidia.com/gpu")
    fields = {e["name"]: e.get("valueFrom", {}).get("fieldRef", {}).get("fieldPath")
              for e in c.get("env", [])}
    for name, path in {"NODE_NAME": "spec.nodeName", "POD_NAME": "metadata.name"}.items():
        if fields.get(name) != path:
            problems.append(f"{name} is not set from {path} (the downward API)")
    if pod_spec(manifest).get("terminationGracePeriodSeconds", 30) < 60:
        problems.append("terminationGracePeriodSeconds under 60: an interrupted run may be cut")
    return problems


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print("usage: k8s_manifests_test.py DEPLOY_K8S_DIR", file=sys.stderr)
        return 2
    try:
        import kubernetes_validate
        import yaml
    except ImportError as error:
        if os.environ.get("CI"):
            print(f"FAIL: {error} (CI is set: .ci/install installs tests/cluster/requirements.txt)")
            return 1
        print(f"SKIP: {error} (pip install -r tests/cluster/requirements.txt)")
        return SKIP

    versions = [OLDEST_VERSION, str(kubernetes_validate.utils.latest_version())]
    paths = sorted(Path(argv[1]).glob("*.yaml"))
    if not paths:
        print(f"FAIL: no manifest in {argv[1]}")
        return 1
    passed = failed = 0

    def verdict(ok: bool, what: str) -> None:
        nonlocal passed, failed
        passed += ok
        failed += not ok
        print(f"{'ok' if ok else 'FAIL'}: {what}")

    for path in paths:
        documents = [d for d in yaml.safe_load_all(path.read_text()) if d]
        verdict(len(documents) == 1, f"{path.name}: one resource")
        manifest = documents[0]
        for version in versions:
            try:
                kubernetes_validate.validate(manifest, version, strict=True)
                verdict(True, f"{path.name}: valid for Kubernetes {version}")
            except kubernetes_validate.ValidationError as error:
                verdict(False, f"{path.name}: invalid for Kubernetes {version}: {error}")
        problems = check_contents(manifest)
        verdict(not problems, f"{path.name}: {'; '.join(problems) or 'sets what gpubench needs'}")
        for what, breakage in BREAKAGES.items():
            broken = copy.deepcopy(manifest)
            breakage(broken)
            try:
                kubernetes_validate.validate(broken, versions[-1], strict=True)
                verdict(False, f"{path.name} with {what}: accepted")
            except kubernetes_validate.ValidationError:
                verdict(True, f"{path.name} with {what}: rejected")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
