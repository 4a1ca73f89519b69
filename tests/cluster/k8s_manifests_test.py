#!/usr/bin/env python3
"""deploy/k8s against the Kubernetes OpenAPI schemas, offline (kubernetes-validate ships them),
and against what the schemas do not check.

    k8s_manifests_test.py DEPLOY_K8S_DIR

Every manifest must validate strictly (no unknown field) against the oldest Kubernetes it
targets (1.29: an Indexed Job's backoffLimitPerIndex is on by default from there) and the
newest the package knows. A workload's must pass the rules the API server, the scheduler or the
restricted Pod Security Standard apply and a schema does not (check_rules): a selector that
matches the template's labels, the restart policy its kind allows, Guaranteed QoS (requests
equal limits for cpu, memory and nvidia.com/gpu) with one GPU or more per pod, the restricted
securityContext, a Job's deadline with each pod's own (GPUBENCH_POD_DEADLINE) before it, one pod
per node (a required pod anti-affinity on the node's hostname, and a Job running all its pods at
once), nodes of one GPU model (nvidia.com/gpu.product), the results on a PersistentVolumeClaim,
and what gpubench and gpubench-tools fleet rely on (NODE_NAME and POD_NAME from the downward API,
a Job's JOB_UID from its pods' controller-uid label, a grace period for an interrupted run). A
claim a workload mounts must be a manifest of the directory, ReadWriteMany (its pods on several
nodes write at once). Broken copies of each manifest must be rejected, each by the check meant to
catch it, so a check that accepts anything fails this test. The manifests and docs/cluster.md
must wait for a Job's Complete or Failed condition, not Complete alone. Exit 77 (skipped) where
kubernetes-validate or PyYAML is missing, except where GPUBENCH_CLUSTER_TESTS=required (.ci/run,
after .ci/install --cluster).
"""

import copy
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

OLDEST_VERSION = "1.29.0"
SKIP = 77
GPU = "nvidia.com/gpu"
# The node label of NVIDIA's GPU feature discovery naming the nodes' GPU model.
GPU_PRODUCT = "nvidia.com/gpu.product"
HOSTNAME = "kubernetes.io/hostname"
CLAIM = "PersistentVolumeClaim"
# Kinds whose pods must run until deleted, and kinds whose pods run to completion.
RESTART_ALWAYS = {"DaemonSet", "Deployment", "ReplicaSet", "StatefulSet"}
RUN_TO_COMPLETION = {"Job"}

Manifest = dict[str, Any]


def pod_spec(manifest: Manifest) -> Manifest:
    return manifest["spec"]["template"]["spec"]


def container(manifest: Manifest) -> Manifest:
    return pod_spec(manifest)["containers"][0]


def selects(selector: Manifest, labels: dict[str, str]) -> bool:
    """Whether a LabelSelector (matchLabels, matchExpressions) selects `labels`."""
    if any(labels.get(k) != v for k, v in (selector.get("matchLabels") or {}).items()):
        return False
    for expression in selector.get("matchExpressions") or []:
        key, operator, values = expression["key"], expression["operator"], expression.get("values", [])
        present = key in labels
        if not {"In": present and labels[key] in values,
                "NotIn": not present or labels[key] not in values,
                "Exists": present, "DoesNotExist": not present}[operator]:
            return False
    return True


def check_selector(manifest: Manifest) -> list[str]:
    labels = manifest["spec"]["template"].get("metadata", {}).get("labels") or {}
    selector = manifest["spec"].get("selector")
    if selector is None:
        # The Job controller makes its own selector; the other kinds need one.
        return [] if manifest["kind"] == "Job" else ["no spec.selector"]
    if not (selector.get("matchLabels") or selector.get("matchExpressions")):
        return ["spec.selector is empty: it would select every pod"]
    if not selects(selector, labels):
        return [f"spec.selector {selector} does not select the template's labels {labels}"]
    return []


def check_restart_policy(manifest: Manifest) -> list[str]:
    kind = manifest["kind"]
    policy = pod_spec(manifest).get("restartPolicy", "Always")
    if kind in RESTART_ALWAYS and policy != "Always":
        return [f"restartPolicy {policy}: a {kind} allows Always only"]
    if kind in RUN_TO_COMPLETION:
        if policy not in ("Never", "OnFailure"):
            return [f"restartPolicy {policy}: a {kind} allows Never or OnFailure"]
        if "backoffLimitPerIndex" in manifest["spec"] and policy != "Never":
            return ["backoffLimitPerIndex needs restartPolicy Never"]
    return []


def check_guaranteed(manifest: Manifest) -> list[str]:
    """Guaranteed QoS: every container's requests equal its limits for cpu and memory; the GPU
    request (where given) equal to its limit, one GPU or more per pod (a node's)."""
    problems = []
    spec = pod_spec(manifest)
    for c in spec.get("initContainers", []) + spec["containers"]:
        resources = c.get("resources") or {}
        requests, limits = resources.get("requests") or {}, resources.get("limits") or {}
        for resource in ("cpu", "memory"):
            if resource not in limits:
                problems.append(f"{c['name']}: no {resource} limit (not Guaranteed QoS)")
            elif str(requests.get(resource, limits[resource])) != str(limits[resource]):
                problems.append(f"{c['name']}: {resource} request {requests[resource]} is not "
                                f"its limit {limits[resource]} (not Guaranteed QoS)")
        if GPU in requests and str(requests[GPU]) != str(limits.get(GPU)):
            problems.append(f"{c['name']}: {GPU} request {requests[GPU]} is not its limit "
                            f"{limits.get(GPU)} (the API server rejects it)")
    gpus = sum(int(str((c.get("resources") or {}).get("limits", {}).get(GPU, 0)))
               for c in spec["containers"])
    if gpus < 1:
        problems.append(f"{gpus} {GPU} per pod: it measures no GPU")
    return problems


def check_security(manifest: Manifest) -> list[str]:
    """The restricted Pod Security Standard (Kubernetes' pod-security admission, level
    restricted): what it requires of the pod and every container."""
    problems = []
    spec = pod_spec(manifest)
    pod = spec.get("securityContext") or {}
    for host in ("hostNetwork", "hostPID", "hostIPC"):
        if spec.get(host):
            problems.append(f"{host}: true")
    for volume in spec.get("volumes", []):
        if "hostPath" in volume:
            problems.append(f"volume {volume['name']} is a hostPath")
    for c in spec.get("initContainers", []) + spec["containers"]:
        context = c.get("securityContext") or {}
        name = c["name"]
        if not context.get("runAsNonRoot", pod.get("runAsNonRoot")):
            problems.append(f"{name}: runAsNonRoot is not true")
        if context.get("runAsUser", pod.get("runAsUser")) == 0:
            problems.append(f"{name}: runAsUser 0")
        if context.get("allowPrivilegeEscalation") is not False:
            problems.append(f"{name}: allowPrivilegeEscalation is not false")
        if context.get("privileged"):
            problems.append(f"{name}: privileged")
        capabilities = context.get("capabilities") or {}
        if "ALL" not in (capabilities.get("drop") or []):
            problems.append(f"{name}: capabilities do not drop ALL")
        if set(capabilities.get("add") or []) - {"NET_BIND_SERVICE"}:
            problems.append(f"{name}: adds capabilities {capabilities['add']}")
        seccomp = (context.get("seccompProfile") or pod.get("seccompProfile") or {}).get("type")
        if seccomp not in ("RuntimeDefault", "Localhost"):
            problems.append(f"{name}: seccompProfile is {seccomp}, not RuntimeDefault or Localhost")
    return problems


def env_value(manifest: Manifest, name: str) -> str | None:
    """The literal value of the first container's environment variable `name`, or None."""
    return next((e.get("value") for e in container(manifest).get("env", []) if e["name"] == name),
                None)


def check_deadline(manifest: Manifest) -> list[str]:
    """A Job's deadline, and each pod's own (gpubench-pod's GPUBENCH_POD_DEADLINE) before it
    with the grace period to spare: at the Job's deadline the Job controller deletes the pods
    still running, their logs and emptyDir with them, so a pod must stop itself first."""
    if manifest["kind"] != "Job":
        return []
    job_deadline = manifest["spec"].get("activeDeadlineSeconds")
    if not job_deadline:
        return ["a Job without activeDeadlineSeconds: a hung GPU holds its pod for ever"]
    pod_deadline = env_value(manifest, "GPUBENCH_POD_DEADLINE") or ""
    if not pod_deadline.isdigit() or int(pod_deadline) == 0:
        return [f"GPUBENCH_POD_DEADLINE {pod_deadline!r} is not a number of seconds: a pod runs "
                "until the Job's deadline deletes it with its log"]
    grace = pod_spec(manifest).get("terminationGracePeriodSeconds", 30)
    if int(pod_deadline) + grace >= job_deadline:
        return [f"GPUBENCH_POD_DEADLINE {pod_deadline} s plus the grace period ({grace} s) is not "
                f"under activeDeadlineSeconds {job_deadline}: the Job's deadline deletes pods, "
                "their logs with them, before they stop themselves"]
    return []


def wait_problems(text: str) -> list[str]:
    """A documented `kubectl wait` for a Job's Complete condition alone waits out its timeout
    when the Job fails (a failed index, the deadline): the text must wait for Failed too."""
    waits = [line for line in text.splitlines() if "kubectl wait" in line]
    if any("condition=complete" in w for w in waits) and \
            not any("condition=failed" in w for w in waits):
        return ["waits for condition=complete alone: a Failed Job is waited on until the timeout"]
    return []


def check_one_per_node(manifest: Manifest) -> list[str]:
    """At most one pod of the workload on a node, each measuring its node's GPUs alone (a
    DaemonSet has one per node by construction): a required pod anti-affinity on the node's
    hostname selecting the pods (a preferred one, or a topology spread, lets two share a node
    when the scheduler finds no other), and for a Job all its pods at once (the anti-affinity
    counts only pods that have not finished: a node whose pod finished could take a later one)."""
    if manifest["kind"] == "DaemonSet":
        return []
    labels = manifest["spec"]["template"].get("metadata", {}).get("labels") or {}
    anti = (pod_spec(manifest).get("affinity") or {}).get("podAntiAffinity") or {}
    problems = []
    # A term without a labelSelector selects no pod.
    if not any(t["topologyKey"] == HOSTNAME and "labelSelector" in t
               and selects(t["labelSelector"], labels)
               for t in anti.get("requiredDuringSchedulingIgnoredDuringExecution", [])):
        problems.append(f"no required podAntiAffinity on {HOSTNAME} selecting the pods: two may "
                        "share a node, measuring its GPUs at once")
    spec = manifest["spec"]
    if manifest["kind"] == "Job" and spec.get("parallelism", 1) != spec.get("completions", 1):
        problems.append(f"parallelism {spec.get('parallelism', 1)} is not completions "
                        f"{spec.get('completions', 1)}: a node whose pod finished may take another")
    return problems


def check_gpu_model(manifest: Manifest) -> list[str]:
    """Nodes of one GPU model: a nodeSelector on nvidia.com/gpu.product."""
    if (pod_spec(manifest).get("nodeSelector") or {}).get(GPU_PRODUCT):
        return []
    return [f"no nodeSelector on {GPU_PRODUCT}: nodes of any GPU model may run it"]


def check_results(manifest: Manifest) -> list[str]:
    """gpubench-pod's files (GPUBENCH_RESULTS) on a PersistentVolumeClaim, which outlives the
    pods, where an emptyDir goes with its pod."""
    path = env_value(manifest, "GPUBENCH_RESULTS")
    if not path:
        return ["GPUBENCH_RESULTS is not set: the files go to a temporary directory of the pod"]
    mount = next((m for m in container(manifest).get("volumeMounts", [])
                  if m["mountPath"] == path), None)
    if mount is None:
        return [f"no volume at GPUBENCH_RESULTS {path}: the files go with the container"]
    volume = next((v for v in pod_spec(manifest).get("volumes", [])
                   if v["name"] == mount["name"]), {})
    if "persistentVolumeClaim" not in volume:
        return [f"GPUBENCH_RESULTS {path} is volume {mount['name']!r}, not a "
                "PersistentVolumeClaim: the files go with the pod"]
    return []


def claims_of(manifest: Manifest) -> list[str]:
    """The PersistentVolumeClaims a workload's pods mount."""
    return [v["persistentVolumeClaim"]["claimName"] for v in pod_spec(manifest).get("volumes", [])
            if "persistentVolumeClaim" in v]


def missing_claims(manifests: list[Manifest]) -> list[str]:
    """The claims a workload mounts that no manifest of the directory makes."""
    claims = {m["metadata"]["name"] for m in manifests if m["kind"] == CLAIM}
    return [f"{m['metadata']['name']} mounts claim {name}, which no manifest here makes"
            for m in manifests if m["kind"] != CLAIM for name in claims_of(m)
            if name not in claims]


def check_claim(claim: Manifest) -> list[str]:
    """A claim the pods of a Job write at once from their nodes: ReadWriteMany."""
    modes = claim["spec"].get("accessModes") or []
    if "ReadWriteMany" not in modes:
        return [f"accessModes {modes}: the pods of several nodes cannot all mount it to write "
                "(ReadWriteMany)"]
    return []


# The Job's UID, which tells a Job from an earlier one of the same name (gpubench-tools fleet's stale files).
JOB_UID_PATH = "metadata.labels['batch.kubernetes.io/controller-uid']"


def check_gpubench(manifest: Manifest) -> list[str]:
    """What gpubench-pod, gpubench's context and gpubench-tools fleet need from a manifest."""
    problems = []
    fields = {e["name"]: e.get("valueFrom", {}).get("fieldRef", {}).get("fieldPath")
              for e in container(manifest).get("env", [])}
    needed = {"NODE_NAME": "spec.nodeName", "POD_NAME": "metadata.name"}
    if manifest["kind"] == "Job":
        needed["JOB_UID"] = JOB_UID_PATH
    for name, path in needed.items():
        if fields.get(name) != path:
            problems.append(f"{name} is not set from {path} (the downward API)")
    if pod_spec(manifest).get("terminationGracePeriodSeconds", 30) < 60:
        problems.append("terminationGracePeriodSeconds under 60: an interrupted run may be cut")
    return problems


RULES: dict[str, Callable[[Manifest], list[str]]] = {
    "selector": check_selector,
    "restart policy": check_restart_policy,
    "Guaranteed QoS, GPUs": check_guaranteed,
    "restricted securityContext": check_security,
    "deadline": check_deadline,
    "one pod per node": check_one_per_node,
    "one GPU model": check_gpu_model,
    "results kept": check_results,
    "gpubench's needs": check_gpubench,
}


def check_rules(manifest: Manifest) -> dict[str, list[str]]:
    """Each rule's problems; a manifest the rules cannot read is one problem of each."""
    found = {}
    for rule, check in RULES.items():
        try:
            found[rule] = check(manifest)
        except (KeyError, TypeError, ValueError, AttributeError) as error:
            found[rule] = [f"cannot be read ({type(error).__name__}: {error})"]
    return found


def as_daemonset(manifest: Manifest, policy: str) -> None:
    """The same pod as a DaemonSet (restartPolicy `policy`)."""
    template = manifest["spec"]["template"]
    template["spec"]["restartPolicy"] = policy
    labels = template["metadata"]["labels"]
    manifest.clear()
    manifest.update({"apiVersion": "apps/v1", "kind": "DaemonSet",
                     "metadata": {"name": "gpubench-node"},
                     "spec": {"selector": {"matchLabels": dict(labels)}, "template": template}})


def resources(manifest: Manifest) -> Manifest:
    return container(manifest)["resources"]


def set_path(path: str, value: Any) -> Callable[[Manifest], None]:
    """A breakage that sets a dotted path under the pod spec ('container.' for the first
    container); value None deletes it."""
    def breakage(manifest: Manifest) -> None:
        node = pod_spec(manifest)
        keys = path.split(".")
        if keys[0] == "container":
            node, keys = container(manifest), keys[1:]
        for key in keys[:-1]:
            node = node.setdefault(key, {})
        if value is None:
            node.pop(keys[-1], None)
        else:
            node[keys[-1]] = value
    return breakage


def schema_breakages() -> dict[str, Callable[[Manifest], None]]:
    def misspelled(m: Manifest) -> None:
        pod_spec(m)["containres"] = pod_spec(m).pop("containers")

    def gpu_list(m: Manifest) -> None:
        resources(m)["limits"][GPU] = ["one"]

    def env_without_name(m: Manifest) -> None:
        del container(m)["env"][0]["name"]

    return {
        "a misspelled field (containres)": misspelled,
        "nvidia.com/gpu given as a list": gpu_list,
        "an env entry without a name": env_without_name,
        "restartPolicy given as a number": set_path("restartPolicy", 17),
    }


def rule_breakages(manifest: Manifest) -> dict[str, tuple[str, Callable[[Manifest], None]]]:
    """Broken copies the schemas accept, each with the rule that must reject it."""
    def selector_elsewhere(m: Manifest) -> None:
        m["spec"]["selector"] = {"matchLabels": {"app.kubernetes.io/name": "something-else"}}
        m["spec"]["manualSelector"] = True

    def gpu_request_unlike_limit(m: Manifest) -> None:
        resources(m).setdefault("requests", {})[GPU] = 2

    def cpu_burstable(m: Manifest) -> None:
        resources(m)["requests"]["cpu"] = "1"

    def no_memory(m: Manifest) -> None:
        resources(m)["requests"].pop("memory", None)
        resources(m)["limits"].pop("memory", None)

    def no_gpu(m: Manifest) -> None:
        resources(m)["limits"].pop(GPU)
        resources(m)["requests"].pop(GPU)

    def anti_affinity_preferred(m: Manifest) -> None:
        anti = pod_spec(m)["affinity"]["podAntiAffinity"]
        anti["preferredDuringSchedulingIgnoredDuringExecution"] = [
            {"weight": 100, "podAffinityTerm": term}
            for term in anti.pop("requiredDuringSchedulingIgnoredDuringExecution")]

    def anti_affinity_selects_nothing(m: Manifest) -> None:
        for term in pod_spec(m)["affinity"]["podAntiAffinity"][
                "requiredDuringSchedulingIgnoredDuringExecution"]:
            term["labelSelector"] = {"matchLabels": {"app.kubernetes.io/name": "other"}}

    def spread_in_place_of_anti_affinity(m: Manifest) -> None:
        del pod_spec(m)["affinity"]
        pod_spec(m)["topologySpreadConstraints"] = [{
            "maxSkew": 1, "topologyKey": HOSTNAME, "whenUnsatisfiable": "ScheduleAnyway",
            "labelSelector": {"matchLabels": m["spec"]["template"]["metadata"]["labels"]}}]

    def fewer_at_once(m: Manifest) -> None:
        m["spec"]["parallelism"] = m["spec"]["completions"] - 1

    def results_on_empty_dir(m: Manifest) -> None:
        for volume in pod_spec(m)["volumes"]:
            if "persistentVolumeClaim" in volume:
                del volume["persistentVolumeClaim"]
                volume["emptyDir"] = {}

    def without_pod_deadline(m: Manifest) -> None:
        container(m)["env"] = [e for e in container(m)["env"]
                               if e["name"] != "GPUBENCH_POD_DEADLINE"]

    def without_job_uid(m: Manifest) -> None:
        container(m)["env"] = [e for e in container(m)["env"] if e["name"] != "JOB_UID"]

    def pod_deadline_at_job_deadline(m: Manifest) -> None:
        for e in container(m)["env"]:
            if e["name"] == "GPUBENCH_POD_DEADLINE":
                e["value"] = str(m["spec"]["activeDeadlineSeconds"])

    breakages = {
        "a selector that does not match the template's labels": ("selector", selector_elsewhere),
        "restartPolicy Always on a Job": ("restart policy", set_path("restartPolicy", "Always")),
        "restartPolicy OnFailure with backoffLimitPerIndex":
            ("restart policy", set_path("restartPolicy", "OnFailure")),
        "the pod as a DaemonSet with restartPolicy Never":
            ("restart policy", lambda m: as_daemonset(m, "Never")),
        "a GPU request unlike its limit": ("Guaranteed QoS, GPUs", gpu_request_unlike_limit),
        "a cpu request under its limit": ("Guaranteed QoS, GPUs", cpu_burstable),
        "no memory request or limit": ("Guaranteed QoS, GPUs", no_memory),
        "no GPU": ("Guaranteed QoS, GPUs", no_gpu),
        "runAsNonRoot false": ("restricted securityContext",
                               set_path("securityContext.runAsNonRoot", False)),
        "allowPrivilegeEscalation true": ("restricted securityContext",
                                          set_path("container.securityContext.allowPrivilegeEscalation", True)),
        "capabilities not dropped": ("restricted securityContext",
                                     set_path("container.securityContext.capabilities", None)),
        "no seccompProfile": ("restricted securityContext",
                              set_path("securityContext.seccompProfile", None)),
        "privileged": ("restricted securityContext",
                       set_path("container.securityContext.privileged", True)),
        "a hostPath volume": ("restricted securityContext",
                              set_path("volumes", [{"name": "dev", "hostPath": {"path": "/dev"}}])),
        "no activeDeadlineSeconds": ("deadline", lambda m: m["spec"].pop("activeDeadlineSeconds", None)),
        "no GPUBENCH_POD_DEADLINE": ("deadline", without_pod_deadline),
        "GPUBENCH_POD_DEADLINE at the Job's deadline": ("deadline", pod_deadline_at_job_deadline),
        "no pod anti-affinity": ("one pod per node", set_path("affinity", None)),
        "a preferred pod anti-affinity, not a required one":
            ("one pod per node", anti_affinity_preferred),
        "a spread over nodes in place of the anti-affinity":
            ("one pod per node", spread_in_place_of_anti_affinity),
        "an anti-affinity whose selector matches no pod":
            ("one pod per node", anti_affinity_selects_nothing),
        "parallelism below completions": ("one pod per node", fewer_at_once),
        "no GPU-model selector": ("one GPU model", set_path("nodeSelector", None)),
        "the results on an emptyDir": ("results kept", results_on_empty_dir),
        "NODE_NAME not from the downward API":
            ("gpubench's needs", lambda m: container(m)["env"].pop(0)),
        "JOB_UID not from the downward API": ("gpubench's needs", without_job_uid),
    }
    if manifest["kind"] != "Job":
        breakages = {k: v for k, v in breakages.items()
                     if k not in ("restartPolicy Always on a Job", "no activeDeadlineSeconds",
                                  "restartPolicy OnFailure with backoffLimitPerIndex",
                                  "no GPUBENCH_POD_DEADLINE",
                                  "GPUBENCH_POD_DEADLINE at the Job's deadline",
                                  "JOB_UID not from the downward API",
                                  "parallelism below completions")}
    return breakages


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print("usage: k8s_manifests_test.py DEPLOY_K8S_DIR", file=sys.stderr)
        return 2
    try:
        import kubernetes_validate
        import yaml
    except ImportError as error:
        if os.environ.get("GPUBENCH_CLUSTER_TESTS") == "required":
            print(f"FAIL: {error} (GPUBENCH_CLUSTER_TESTS=required: .ci/install --cluster "
                  "installs tests/cluster/requirements.txt)")
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

    def schema_valid(manifest: Manifest, version: str) -> str:
        try:
            kubernetes_validate.validate(manifest, version, strict=True)
            return ""
        except kubernetes_validate.ValidationError as error:
            return str(error).splitlines()[0]

    documented = paths + [p for p in [Path(argv[1]).resolve().parents[1] / "docs" / "cluster.md"]
                          if p.is_file()]
    for path in documented:
        problems = wait_problems(path.read_text())
        verdict(not problems, f"{path.name}: kubectl wait: "
                              f"{'; '.join(problems) or 'returns on Complete or Failed'}")
    problems = wait_problems("kubectl wait --for=condition=complete --timeout=2h job/gpubench")
    verdict(bool(problems), "a wait for condition=complete alone: "
                            f"{problems[0] if problems else 'accepted'}")
    manifests: dict[Path, Manifest] = {}
    for path in paths:
        documents = [d for d in yaml.safe_load_all(path.read_text()) if d]
        verdict(len(documents) == 1, f"{path.name}: one resource")
        manifest = manifests[path] = documents[0]
        for version in versions:
            error = schema_valid(manifest, version)
            verdict(not error, f"{path.name}: {'invalid' if error else 'valid'} for Kubernetes "
                               f"{version}{': ' + error if error else ''}")
        if manifest["kind"] == CLAIM:
            problems = check_claim(manifest)
            verdict(not problems, f"{path.name}: ReadWriteMany: {'; '.join(problems) or 'met'}")
            broken = copy.deepcopy(manifest)
            broken["spec"]["accessModes"] = ["ReadWriteOnce"]
            problems = check_claim(broken)
            verdict(not schema_valid(broken, versions[-1]) and bool(problems),
                    f"{path.name} with ReadWriteOnce: "
                    f"{problems[0] if problems else 'accepted'}")
            continue
        for rule, problems in check_rules(manifest).items():
            verdict(not problems, f"{path.name}: {rule}: {'; '.join(problems) or 'met'}")
        for what, breakage in schema_breakages().items():
            broken = copy.deepcopy(manifest)
            breakage(broken)
            verdict(bool(schema_valid(broken, versions[-1])),
                    f"{path.name} with {what}: {'rejected' if schema_valid(broken, versions[-1]) else 'accepted'} by the schema")
        for what, (rule, breakage) in rule_breakages(manifest).items():
            broken = copy.deepcopy(manifest)
            breakage(broken)
            error = schema_valid(broken, versions[-1])
            problems = check_rules(broken)[rule]
            # The schemas accept it (else it tests nothing they do not) and the rule rejects it.
            verdict(not error and bool(problems),
                    f"{path.name} with {what}: "
                    + (f"rejected by the schema, not the {rule} rule ({error})" if error else
                       f"rejected by the {rule} rule ({problems[0]})" if problems else
                       f"accepted by the {rule} rule"))
        # The control: the same pod as a DaemonSet with Always passes the restart rule.
        daemonset = copy.deepcopy(manifest)
        as_daemonset(daemonset, "Always")
        problems = check_rules(daemonset)["restart policy"]
        verdict(not problems and not schema_valid(daemonset, versions[-1]),
                f"{path.name} as a DaemonSet with restartPolicy Always: "
                f"{'valid, and met by the restart rule' if not problems else problems[0]}")
    # Each claim a workload mounts is one of the directory's manifests, so applying them
    # makes it; a workload mounting another is found.
    problems = missing_claims(list(manifests.values()))
    verdict(not problems, f"claims: {'; '.join(problems) or 'each a manifest here'}")
    renamed = copy.deepcopy(list(manifests.values()))
    for manifest in renamed:
        for volume in pod_spec(manifest).get("volumes", []) if manifest["kind"] != CLAIM else []:
            if "persistentVolumeClaim" in volume:
                volume["persistentVolumeClaim"]["claimName"] = "gpubench-other"
    problems = missing_claims(renamed)
    verdict(bool(problems), f"a claim of another name: {problems[0] if problems else 'accepted'}")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
