"""The Kubernetes manifests parse and agree with each other (no cluster here)."""

from __future__ import annotations

from pathlib import Path

import yaml

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
