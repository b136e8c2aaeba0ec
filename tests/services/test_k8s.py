"""The Kubernetes manifests parse, agree with each other and pass a schema validation of the
Kubernetes and KubeRay resources, offline (no cluster here)."""

from __future__ import annotations

import copy
import functools
import json
import shlex
from collections.abc import Callable
from pathlib import Path
from typing import Any

import jsonschema
import kubernetes_validate
import pytest
import yaml

from services.placement import ROLES, Placement

K8S = Path(__file__).resolve().parents[2] / "deploy" / "k8s"


def _docs(name: str) -> list[dict]:
    return [d for d in yaml.safe_load_all((K8S / name).read_text()) if d]


def test_rayjob_targets_the_raycluster() -> None:
    (cluster,) = _docs("raycluster.yaml")
    (job,) = _docs("rayjob-student.yaml")
    assert cluster["kind"] == "RayCluster" and job["kind"] == "RayJob"
    assert job["spec"]["clusterSelector"]["ray.io/cluster"] == cluster["metadata"]["name"]
    assert "services.student" in job["spec"]["entrypoint"]
    head = cluster["spec"]["headGroupSpec"]
    assert head["rayStartParams"]["dashboard-host"] == "0.0.0.0"
    ports = head["template"]["spec"]["containers"][0]["ports"]
    assert any(p["containerPort"] == 8265 for p in ports)


def test_vllm_deployment_and_service_match() -> None:
    deployment, service = _docs("vllm.yaml")
    container = deployment["spec"]["template"]["spec"]["containers"][0]
    assert container["image"].startswith("vllm/vllm-openai:v")
    assert container["readinessProbe"]["httpGet"]["path"] == "/health"
    assert service["spec"]["selector"] == deployment["spec"]["template"]["metadata"]["labels"]
    assert service["spec"]["ports"][0]["targetPort"] == container["ports"][0]["containerPort"]


# ---------------------------------------------------------------- schema validation (no network)
# Kubernetes' own kinds are checked against the JSON schemas that `kubernetes-validate` bundles
# (strict: an unknown field is an error); KubeRay's RayCluster and RayJob against the CRDs'
# OpenAPI v3 schemas vendored under deploy/k8s/schemas/ (KubeRay v1.7.0, Apache-2.0), made strict
# the same way, as `kubectl apply --validate=strict` is. Not checked: the CRDs' CEL rules
# (x-kubernetes-validations), which need an API server.
K8S_VERSION = "1.33"  # the Kubernetes release whose schemas the manifests must satisfy
SCHEMAS = K8S / "schemas"
MANIFESTS = sorted(K8S.glob("*.yaml"))


def _strict(schema: Any) -> Any:
    """A copy of an OpenAPI schema where an object with listed properties refuses others (unless
    it keeps unknown fields on purpose): the API server's strict field validation."""
    if isinstance(schema, list):
        return [_strict(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    strict = {key: _strict(value) for key, value in schema.items()}
    if "properties" in schema:
        # `properties` maps names to schemas: recurse into each, not into the map as a schema.
        strict["properties"] = {k: _strict(v) for k, v in schema["properties"].items()}
        if "additionalProperties" not in schema and not schema.get(
            "x-kubernetes-preserve-unknown-fields"
        ):
            strict["additionalProperties"] = False
    return strict


@functools.cache
def _crd_validators() -> dict[tuple[str, str], jsonschema.Draft4Validator]:
    """(apiVersion, kind) -> a validator of the vendored CRD schema."""
    validators = {}
    for path in sorted(SCHEMAS.glob("*.json")):
        vendored = json.loads(path.read_text())
        assert {"source", "version", "licence", "schema"} <= set(vendored), path
        schema = _strict(vendored["schema"])
        # OpenAPI 3.0 schemas are JSON Schema draft 4 with extensions (x-kubernetes-*, ignored).
        jsonschema.Draft4Validator.check_schema(schema)
        validators[vendored["apiVersion"], vendored["kind"]] = jsonschema.Draft4Validator(schema)
    return validators


def schema_problems(doc: dict[str, Any]) -> list[str]:
    """Every way ``doc`` breaks its kind's schema, as 'path: message'; [] when it is valid. A
    kind with no schema here is a problem too: every manifest must be checked."""
    crd = _crd_validators().get((doc.get("apiVersion", ""), doc.get("kind", "")))
    if crd is not None:
        errors = sorted(crd.iter_errors(doc), key=lambda e: list(map(str, e.path)))
        return [f"{'.'.join(map(str, e.path)) or '<root>'}: {e.message}" for e in errors]
    try:
        kubernetes_validate.validate(doc, K8S_VERSION, strict=True)
    except kubernetes_validate.ValidationError as error:
        return [f"{'.'.join(map(str, error.path)) or '<root>'}: {error.message}"]
    except kubernetes_validate.SchemaNotFoundError as error:
        return [error.message]
    return []


def test_the_schemas_are_vendored_with_their_source_and_licence() -> None:
    assert set(_crd_validators()) == {("ray.io/v1", "RayCluster"), ("ray.io/v1", "RayJob")}
    for path in SCHEMAS.glob("*.json"):
        vendored = json.loads(path.read_text())
        assert vendored["source"].startswith("https://github.com/ray-project/kuberay/blob/v")
        assert vendored["licence"].startswith("Apache-2.0")


@pytest.mark.parametrize("path", MANIFESTS, ids=[p.name for p in MANIFESTS])
def test_every_manifest_passes_schema_validation(path: Path) -> None:
    documents = _docs(path.name)
    assert documents, f"{path.name} holds no resource"
    for doc in documents:
        assert schema_problems(doc) == [], f"{path.name}: {doc['kind']} {doc['metadata']['name']}"


def _broken(name: str, index: int, edit: Callable[[dict[str, Any]], None]) -> dict[str, Any]:
    doc = copy.deepcopy(_docs(name)[index])
    edit(doc)
    return doc


BREAKAGES: dict[str, tuple[str, int, Callable[[dict[str, Any]], None], str]] = {
    # name: (manifest, document, the edit, a word the problem must name)
    "raycluster-misspelt-field": (
        "raycluster.yaml", 0,
        lambda d: d["spec"].update(workerGroupSpec=d["spec"].pop("workerGroupSpecs")),
        "workerGroupSpec",
    ),
    "raycluster-replicas-not-a-number": (
        "raycluster.yaml", 0,
        lambda d: d["spec"]["workerGroupSpecs"][0].update(replicas="two"),
        "replicas",
    ),
    "raycluster-worker-group-without-maxReplicas": (
        "raycluster.yaml", 0,
        lambda d: d["spec"]["workerGroupSpecs"][2].pop("maxReplicas"),
        "maxReplicas",
    ),
    "raycluster-container-typo": (
        "raycluster.yaml", 0,
        lambda d: d["spec"]["headGroupSpec"]["template"]["spec"]["containers"][0].update(
            imagePullPolicyy="Always"
        ),
        "imagePullPolicyy",
    ),
    "raycluster-bad-quantity": (
        "raycluster.yaml", 0,
        lambda d: d["spec"]["workerGroupSpecs"][0]["template"]["spec"]["containers"][0][
            "resources"
        ]["limits"].update(memory="lots"),
        "lots",
    ),
    "rayjob-flag-not-a-boolean": (
        "rayjob-student.yaml", 0,
        lambda d: d["spec"].update(shutdownAfterJobFinishes="no"),
        "shutdownAfterJobFinishes",
    ),
    "deployment-container-typo": (
        "vllm.yaml", 0,
        lambda d: d["spec"]["template"]["spec"]["containers"][0].update(
            imag=d["spec"]["template"]["spec"]["containers"][0].pop("image")
        ),
        "imag",
    ),
    "service-port-not-a-number": (
        "vllm.yaml", 1, lambda d: d["spec"]["ports"][0].update(port="http"), "port"
    ),
    "pvc-misspelt-access-modes": (
        "runs-volume.yaml", 0,
        lambda d: d["spec"].update(accesModes=d["spec"].pop("accessModes")),
        "accesModes",
    ),
}


@pytest.mark.parametrize("case", sorted(BREAKAGES))
def test_a_broken_copy_fails_validation(case: str) -> None:
    """The validator bites: each deliberate mistake in a copy of a real manifest is reported."""
    name, index, edit, word = BREAKAGES[case]
    problems = schema_problems(_broken(name, index, edit))
    assert problems, f"{case}: the broken copy passed validation"
    assert any(word in problem for problem in problems), problems


def test_an_unknown_kind_is_not_waved_through() -> None:
    assert schema_problems({"apiVersion": "ray.io/v1", "kind": "RayClustr", "metadata": {}})


def _ray_start_resources(group: dict[str, Any]) -> dict[str, float]:
    """A group's custom resources: KubeRay passes the value to `ray start --resources=` through a
    shell, hence the extra quotes around the JSON."""
    text = group["rayStartParams"].get("resources")
    if text is None:
        return {}
    assert text.startswith('"') and text.endswith('"'), text
    return dict(json.loads(text[1:-1].replace('\\"', '"')))


def test_the_rayjob_places_each_role_on_the_group_that_carries_its_resource() -> None:
    (cluster,) = _docs("raycluster.yaml")
    (job,) = _docs("rayjob-student.yaml")
    args = shlex.split(job["spec"]["entrypoint"])
    placement = Placement.parse(args[args.index("--placement") + 1])
    groups = {g["groupName"]: g for g in cluster["spec"]["workerGroupSpecs"]}
    for role in ROLES:
        wanted = placement.options(role)
        # The same custom resource names as the one-machine cluster of test_multinode.py.
        assert wanted["resources"] == {role: 1}
        hosts = [g for g in groups.values() if _ray_start_resources(g).get(role, 0) >= 1]
        assert len(hosts) == 1, f"{role}: {len(hosts)} worker groups carry its resource"
        (group,) = hosts
        gpus = float(group["rayStartParams"].get("num-gpus", 0))
        assert gpus >= wanted.get("num_gpus", 0), f"{role} asks for a GPU its group lacks"
        container = group["template"]["spec"]["containers"][0]
        if gpus:  # Ray's GPU count is backed by a GPU Kubernetes gives the pod
            assert container["resources"]["limits"]["nvidia.com/gpu"] == str(int(gpus))
    assert placement.options("student").get("num_gpus") == 1  # the student trains on a GPU
    assert "resources" not in cluster["spec"]["headGroupSpec"]["rayStartParams"]
    generators = int(args[args.index("--generators") + 1])
    assert generators == groups["generators"]["replicas"], "one generator actor per node"
    # Checkpoints: the student writes and the evaluator reads them on one shared volume.
    (volume,) = _docs("runs-volume.yaml")
    assert volume["spec"]["accessModes"] == ["ReadWriteMany"]
    for name in ("students", "evaluators"):
        spec = groups[name]["template"]["spec"]
        assert {"name": "runs", "mountPath": "/data/runs"} in spec["containers"][0]["volumeMounts"]
        claims = [v["persistentVolumeClaim"]["claimName"] for v in spec["volumes"]]
        assert claims == [volume["metadata"]["name"]]
    assert "--run-dir /data/runs" in job["spec"]["entrypoint"]
