"""deploy/k8s/ cannot be applied here (no cluster, no kubectl), so it is validated and read: every resource
against the Kubernetes schemas (kubernetes-validate, its schemas bundled, strict: no unknown field), and
against the project it deploys (the settings it sets, the Dockerfile's commands, the probes' paths)."""

import json
import re
import shlex
import time

import kubernetes_validate
import pytest
import requests
import yaml
from django.contrib.staticfiles import finders
from django.urls import resolve

from tests.processes import ROOT, free_port, gunicorn, manage
from tests.test_compose import documented_variables

K8S = ROOT / "deploy" / "k8s"
KUSTOMIZATION = yaml.safe_load((K8S / "kustomization.yaml").read_text())
SECRET_TEMPLATE = "secret.example.yaml"
# The newest minor the pinned kubernetes-validate bundles, and the oldest the manifests promise to work on.
KUBERNETES_VERSIONS = ("1.30", "1.37")
DOCKERFILE = (ROOT / "Dockerfile").read_text()


def load(name: str) -> list[dict]:
    return [document for document in yaml.safe_load_all((K8S / name).read_text()) if document]


MANIFESTS = {
    path.name: load(path.name) for path in sorted(K8S.glob("*.yaml")) if path.name != "kustomization.yaml"
}
RESOURCES = [resource for documents in MANIFESTS.values() for resource in documents]


def one(kind: str, component: str | None = None) -> dict:
    found = [
        resource
        for resource in RESOURCES
        if resource["kind"] == kind
        and component in (None, resource["metadata"]["labels"]["app.kubernetes.io/component"])
    ]
    assert len(found) == 1, f"expected one {kind} {component or ''}, found {len(found)}"
    return found[0]


def pod(workload: dict) -> dict:
    return workload["spec"]["template"]["spec"]


def containers(workload: dict) -> list[dict]:
    return pod(workload).get("initContainers", []) + pod(workload)["containers"]


WEB, WORKER, MIGRATE = one("Deployment", "web"), one("Deployment", "worker"), one("Job", "migrate")
WORKLOADS = [WEB, WORKER, MIGRATE]
CONFIG, SECRET = one("ConfigMap"), one("Secret")
WEB_CONTAINER = pod(WEB)["containers"][0]


@pytest.mark.parametrize("version", KUBERNETES_VERSIONS)
@pytest.mark.parametrize("resource", RESOURCES, ids=lambda resource: kubernetes_validate.utils.kn(resource))
def test_every_resource_is_valid_kubernetes_with_no_unknown_field(resource, version):
    # Raises (naming the field) on an unknown field, a wrong type or a missing required one.
    assert kubernetes_validate.validate(resource, version, strict=True) == version


def test_the_validator_knows_the_newest_version_and_refuses_an_unknown_field():
    assert kubernetes_validate.utils.latest_version().startswith(KUBERNETES_VERSIONS[-1])
    typo = json.loads(json.dumps(WEB))
    pod(typo)["containers"][0]["readinesProbe"] = WEB_CONTAINER["readinessProbe"]
    with pytest.raises(kubernetes_validate.ValidationError, match="readinesProbe"):
        kubernetes_validate.validate(typo, KUBERNETES_VERSIONS[-1], strict=True)


def test_kustomization_lists_every_manifest_but_the_secret_template():
    # `kubectl apply -k` with every release must never overwrite the real Secret with placeholders.
    listed = set(KUSTOMIZATION["resources"])
    assert listed == set(MANIFESTS) - {SECRET_TEMPLATE}
    assert [resource["kind"] for resource in MANIFESTS[SECRET_TEMPLATE]] == ["Secret"]


def test_every_container_runs_the_image_kustomize_overrides():
    (image,) = KUSTOMIZATION["images"]
    for workload in WORKLOADS:
        for container in containers(workload):
            assert container["image"].partition(":")[0] == image["name"], container["name"]


def test_the_secret_template_holds_no_secret():
    values = SECRET["stringData"]
    assert values["DJANGO_SECRET_KEY"] == ""  # the service refuses to start until it is set
    for name, value in values.items():
        assert value == "" or "CHANGE-ME" in value, f"{name} looks like a real value"


# --- the project's side: settings, commands, probes ----------------------------------------------------------


def variables_read() -> set[str]:
    """Every environment variable settings.py and gunicorn.conf.py read, as written in their source."""
    source = (ROOT / "config" / "settings.py").read_text() + (
        ROOT / "config" / "gunicorn.conf.py"
    ).read_text()
    return set(
        re.findall(
            r"""(?:os\.environ\.get|os\.environ\[|env_bool|env_list|env_pairs)\(?\s*["'](\w+)["']""", source
        )
    )


def variables_set(workload: dict) -> set[str]:
    container = pod(workload)["containers"][0]
    names = {variable["name"] for variable in container.get("env", [])}
    for source in container["envFrom"]:
        if "configMapRef" in source:
            assert source["configMapRef"]["name"] == CONFIG["metadata"]["name"]
            names |= set(CONFIG["data"])
        else:
            assert source["secretRef"]["name"] == SECRET["metadata"]["name"]
            names |= set(SECRET["stringData"])
    return names


def test_every_variable_set_is_one_the_service_reads():
    read = variables_read()
    assert {"DJANGO_SECRET_KEY", "DATABASE_URL", "WEB_CONCURRENCY"} <= read  # the grep itself works
    for workload in WORKLOADS:
        unknown = variables_set(workload) - read
        assert not unknown, f"{workload['metadata']['name']} sets {sorted(unknown)}, which nothing reads"


def test_every_documented_setting_reaches_every_process():
    for workload in WORKLOADS:
        missing = documented_variables() - variables_set(workload)
        assert not missing, f"{workload['metadata']['name']} does not get {sorted(missing)}"


def test_secrets_are_in_the_secret_not_the_configmap():
    secret_names = {
        "DJANGO_SECRET_KEY",
        "DATABASE_URL",
        "REDIS_URL",
        "STRIPE_SECRET_KEY",
        "STRIPE_WEBHOOK_SECRET",
        "GOOGLE_MAPS_API_KEY",
        "AERODATABOX_API_KEY",
        "EMAIL_HOST_PASSWORD",
        "TWILIO_AUTH_TOKEN",
    }
    assert secret_names <= set(SECRET["stringData"])
    assert not secret_names & set(CONFIG["data"])
    assert CONFIG["data"]["DJANGO_DEBUG"] == "false"


def dockerfile_commands() -> tuple[list[str], list[str]]:
    """The Dockerfile's CMD is `migrate && exec gunicorn …`: its two commands."""
    (cmd,) = re.findall(r"^CMD (\[.*\])$", DOCKERFILE, re.M)
    shell, flag, script = json.loads(cmd)
    assert (shell, flag) == ("sh", "-c")
    migrate, server = script.split(" && exec ")
    return shlex.split(migrate), shlex.split(server)


def test_web_runs_the_dockerfiles_server_and_the_job_its_migrations():
    migrate, server = dockerfile_commands()
    assert server[0] == "gunicorn" and migrate[:3] == ["python", "manage.py", "migrate"]
    assert WEB_CONTAINER["command"] == server
    assert pod(MIGRATE)["containers"][0]["command"] == migrate
    assert pod(MIGRATE)["restartPolicy"] == "Never"


def test_the_worker_runs_the_queue_worker():
    assert pod(WORKER)["containers"][0]["command"] == ["python", "manage.py", "run_worker"]
    assert not [
        resource
        for resource in RESOURCES
        if resource["kind"] == "Service"
        and resource["spec"]["selector"] == WORKER["spec"]["selector"]["matchLabels"]
    ]


def test_only_the_job_migrates_the_others_wait_for_it():
    for workload in (WEB, WORKER):
        (wait,) = pod(workload)["initContainers"]
        assert "manage.py migrate --check" in " ".join(wait["command"])  # reads, never applies
        assert "manage.py migrate --noinput" not in " ".join(wait["command"])
        assert not any("migrate" in " ".join(c["command"]) for c in pod(workload)["containers"])


def test_readiness_is_healthz_and_liveness_a_path_that_needs_neither_database_nor_redis():
    readiness, liveness = (
        WEB_CONTAINER["readinessProbe"]["httpGet"],
        WEB_CONTAINER["livenessProbe"]["httpGet"],
    )
    assert readiness["path"] == "/healthz" and resolve("/healthz").url_name == "healthz"
    assert WEB_CONTAINER["startupProbe"]["httpGet"] == liveness
    # A static file: WhiteNoise answers before any middleware or view touches PostgreSQL or Redis.
    assert finders.find(liveness["path"].removeprefix("/static/")), liveness["path"]
    allowed = CONFIG["data"]["DJANGO_ALLOWED_HOSTS"].split(",")
    for probe in (readiness, liveness):
        assert probe["port"] == WEB_CONTAINER["ports"][0]["name"]
        headers = {header["name"]: header["value"] for header in probe["httpHeaders"]}
        assert headers["Host"] in allowed  # else Django answers 400 to the pod-IP Host kubelet sends
    # X-Forwarded-Proto is only believed behind a trusted proxy; without it, an https redirect.
    assert int(CONFIG["data"]["TRUSTED_PROXY_COUNT"]) >= 1


def test_the_alerting_check_for_workers_is_the_webs_healthz_worker():
    assert "/healthz/worker" in (K8S / "worker-deployment.yaml").read_text()
    assert "/healthz/worker" in (ROOT / "docs" / "operations" / "kubernetes.md").read_text()


def test_every_container_has_requests_limits_and_runs_locked_down():
    uid = re.search(r"useradd .*--uid (\d+)", DOCKERFILE)[1]
    for workload in WORKLOADS:
        spec = pod(workload)
        assert spec["securityContext"]["runAsNonRoot"] and str(spec["securityContext"]["runAsUser"]) == uid
        assert spec["automountServiceAccountToken"] is False
        writable = {volume["name"] for volume in spec["volumes"] if "emptyDir" in volume}
        for container in containers(workload):
            name = f"{workload['metadata']['name']}/{container['name']}"
            for kind in ("requests", "limits"):
                assert set(container["resources"][kind]) == {"cpu", "memory"}, name
            context = container["securityContext"]
            assert context["readOnlyRootFilesystem"] and not context["allowPrivilegeEscalation"], name
            assert context["capabilities"]["drop"] == ["ALL"], name
            mounts = {mount["mountPath"]: mount["name"] for mount in container["volumeMounts"]}
            tmp = mounts.get("/tmp")  # noqa: S108 - the pod's own emptyDir
            assert tmp in writable, f"{name}: /tmp must be writable on a read-only root"


def test_web_pods_are_reached_scaled_and_protected_by_their_own_labels():
    labels = WEB["spec"]["template"]["metadata"]["labels"]
    assert WEB["spec"]["selector"]["matchLabels"] == labels
    service, budget, autoscaler = one("Service"), one("PodDisruptionBudget"), one("HorizontalPodAutoscaler")
    assert service["spec"]["selector"] == labels
    assert service["spec"]["ports"][0]["targetPort"] == WEB_CONTAINER["ports"][0]["name"]
    assert budget["spec"]["selector"]["matchLabels"] == labels
    assert budget["spec"]["minAvailable"] < autoscaler["spec"]["minReplicas"]  # else no node could drain
    assert autoscaler["spec"]["scaleTargetRef"]["name"] == WEB["metadata"]["name"]
    assert "replicas" not in WEB["spec"]  # the autoscaler owns the count; a fixed one resets it on apply
    assert WORKER["spec"]["selector"]["matchLabels"] != labels


def test_web_stops_gracefully_within_its_grace_period():
    config = (ROOT / "config" / "gunicorn.conf.py").read_text()
    graceful = int(re.search(r"^graceful_timeout = (\d+)", config, re.M)[1])
    pause = int(WEB_CONTAINER["lifecycle"]["preStop"]["exec"]["command"][1])
    assert pod(WEB)["terminationGracePeriodSeconds"] > graceful + pause


# --- PostgreSQL's connections ----------------------------------------------------------------------------------

MAX_CONNECTIONS = 100 - 3  # PostgreSQL's default, less superuser_reserved_connections
HEALTHZ_IN_FLIGHT = 1  # per web pod: a readiness probe's own short-lived connection (config/views.py)
PER_WORKER_POD = (
    2  # the job loop and its Housekeeper thread (jobqueue/worker.py), each with its own connection
)
BY_HAND = 2  # the migrate Job and a manage.py command someone runs


def connection_budget() -> dict[str, int]:
    """What docs/operations/kubernetes.md#connection-budget counts, from the manifests and gunicorn.conf.py:
    Django's connections belong to a thread, so each gunicorn thread holds one."""
    config = (ROOT / "config" / "gunicorn.conf.py").read_text()
    threads = int(re.search(r"^threads = (\d+)", config, re.M)[1])
    (concurrency,) = [int(v["value"]) for v in WEB_CONTAINER["env"] if v["name"] == "WEB_CONCURRENCY"]
    web_pods = one("HorizontalPodAutoscaler")["spec"]["maxReplicas"] + surge(WEB)
    worker_pods = WORKER["spec"]["replicas"] + surge(WORKER)
    web = web_pods * (concurrency * threads + HEALTHZ_IN_FLIGHT)
    workers = worker_pods * PER_WORKER_POD
    return {"threads": threads, "web": web, "workers": workers, "total": web + workers + BY_HAND}


def surge(workload: dict) -> int:
    return int(workload["spec"]["strategy"]["rollingUpdate"]["maxSurge"])


def test_the_connection_budget_counts_every_thread_and_fits_postgresql():
    budget = connection_budget()
    assert budget["threads"] == 2  # the documented figures below assume it
    assert (budget["web"], budget["workers"], budget["total"]) == (49, 6, 57)
    assert budget["total"] <= MAX_CONNECTIONS
    page = (ROOT / "docs" / "operations" / "kubernetes.md").read_text()
    section = page[page.index("### Connection budget") : page.index("### Sizing")]
    assert "(maxReplicas + 1) × (WEB_CONCURRENCY × threads + 1) + (worker replicas + 1) × 2 + 2" in section
    assert "7 × (3 × 2 + 1) + 3 × 2 + 2 = 49 + 6 + 2 = **57**" in section


# --- the probes against the real server ------------------------------------------------------------------------


def probe(base: str, container: dict, kind: str) -> requests.Response:
    http = container[kind]["httpGet"]
    headers = {header["name"]: header["value"] for header in http["httpHeaders"]}
    return requests.get(f"{base}{http['path']}", headers=headers, timeout=5, allow_redirects=False)


@pytest.fixture
def production_env(tmp_path) -> dict[str, str]:
    """The ConfigMap's environment, with static files collected as the image has them (into tmp_path)."""
    (tmp_path / "k8s_settings.py").write_text(
        f"from config.settings import *  # noqa: F403\nSTATIC_ROOT = {str(tmp_path / 'static')!r}\n"
    )
    env = {
        **CONFIG["data"],
        "DJANGO_SECRET_KEY": "k8s-probe-secret-key-" + "k" * 30,
        "PYTHONPATH": str(tmp_path),
        "DJANGO_SETTINGS_MODULE": "k8s_settings",
        "DATABASE_URL": f"sqlite:///{tmp_path}/db.sqlite3",
    }
    collected = manage("collectstatic", "--noinput", **env)
    assert collected.returncode == 0, collected.stderr
    return env


def test_the_probes_answer_as_kubelet_asks_them(tmp_path, production_env):
    with gunicorn(tmp_path, production_env, any_answer=True) as (base, _log):
        assert probe(base, WEB_CONTAINER, "livenessProbe").status_code == 200
        readiness = probe(base, WEB_CONTAINER, "readinessProbe")
        assert readiness.status_code == 200 and readiness.json()["status"] == "ok"


def test_without_database_and_redis_the_pod_is_unready_but_alive(tmp_path, production_env):
    dead = free_port()  # nothing listens there
    env = {
        **production_env,
        "DATABASE_URL": f"postgres://chauffeur@127.0.0.1:{dead}/chauffeur",
        "REDIS_URL": f"redis://127.0.0.1:{dead}/0",
    }
    with gunicorn(tmp_path, env, any_answer=True) as (base, _log):
        readiness = probe(base, WEB_CONTAINER, "readinessProbe")
        assert readiness.status_code == 503
        assert readiness.json() == {
            "status": "unavailable",
            "database": "unavailable",
            "cache": "unavailable",
        }
        assert probe(base, WEB_CONTAINER, "livenessProbe").status_code == 200  # so kubelet restarts nothing


def test_gunicorn_in_a_read_only_pod_logs_no_error(tmp_path, production_env):
    # Only /tmp is writable in the pods (readOnlyRootFilesystem), not the home folder, where gunicorn puts its
    # control socket by default (~/.gunicorn/gunicorn.ctl). A home that cannot be created stands in for it.
    (tmp_path / "read-only").write_text("")
    env = {**production_env, "HOME": str(tmp_path / "read-only" / "home"), "XDG_RUNTIME_DIR": ""}
    with gunicorn(tmp_path, env, any_answer=True) as (base, log):
        assert probe(base, WEB_CONTAINER, "readinessProbe").status_code == 200
        time.sleep(1)  # the control socket starts in a thread of its own, after the workers
    started = log.read_text()
    assert "Booting worker" in started and "Shutting down: Master" in started
    assert "[ERROR]" not in started, started
