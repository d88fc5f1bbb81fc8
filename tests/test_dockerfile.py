"""The container image (``Dockerfile``, ``.dockerignore``), checked without a Docker engine.

* The Dockerfile is parsed (``dockerfile-parse``): two stages on the same slim
  Python (the one pyproject's ``requires-python`` names), a non-root ``USER``
  that owns the ledger ``VOLUME``, the exposed ports, ``HEALTHCHECK``,
  ``STOPSIGNAL``, exec-form ``ENTRYPOINT``/``CMD``.
* The build context is what Docker would send: the files of this checkout
  that ``.dockerignore`` keeps, by Docker's own matching rules (the Docker SDK's
  ``PatternMatcher``, a port of the engine's).
* The image is then assembled outside a container: the builder stage's COPY
  lines and its ``pip wheel`` command (offline: dependencies are the ones
  installed here) make the wheel; the runtime stage's ``pip install`` command
  installs it into a directory; its COPY lines lay out the calendars. The
  ENTRYPOINT/CMD runs as written with the Dockerfile's ENV (paths mapped into
  a temporary root, host 127.0.0.1, free ports), answers a call from a baked
  bundle into the ledger on the volume, serves metrics, the HEALTHCHECK
  command as written exits 0 against it, and SIGTERM stops it with exit code
  0. Under mutual TLS the same HEALTHCHECK passes with the flags
  docs/operations.md gives it (``DUETIME_HEALTH_ARGS``).
* docs/operations.md's table of settings matches ``duetime serve``'s
  settings and the image's ENV.
"""

from __future__ import annotations

import json
import os
import queue
import re
import shlex
import shutil
import signal
import subprocess
import sys
import threading
import tomllib
import urllib.request
import zipfile
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

import grpc
import pytest
from docker.utils.build import PatternMatcher, exclude_paths
from dockerfile_parse import DockerfileParser
from duetime.config import SETTINGS
from duetime.v1 import duetime_pb2 as pb
from duetime.v1 import duetime_pb2_grpc as pb_grpc
from server_process import free_port
from test_ops_security import make_pki

REPO = Path(__file__).resolve().parents[1]
STARTUP_TIMEOUT = 30.0
STOP_TIMEOUT = 30.0
PROBE_TIMEOUT = 30.0
LISTENING = re.compile(r"duetime listening on 127\.0\.0\.1:(\d+)")


# ---------------------------------------------------------------------------
# reading the Dockerfile and .dockerignore


@dataclass
class Stage:
    """One ``FROM`` stage: its base image (ARGs substituted), name and instructions."""

    base: str
    name: str | None
    instructions: list[tuple[str, str]] = field(default_factory=list)

    def values(self, instruction: str) -> list[str]:
        return [value for name, value in self.instructions if name == instruction]

    def last(self, instruction: str) -> str:
        found = self.values(instruction)
        assert found, f"stage {self.name}: no {instruction}"
        return found[-1]


def stages() -> list[Stage]:
    parser = DockerfileParser(path=str(REPO / "Dockerfile"))
    bases = iter(parser.parent_images)  # FROM images with ARG defaults substituted
    found: list[Stage] = []
    for item in parser.structure:
        instruction, value = item["instruction"], item["value"]
        if instruction == "FROM":
            words = value.split()
            name = words[2] if len(words) == 3 and words[1].upper() == "AS" else None
            found.append(Stage(next(bases), name))
        elif instruction != "COMMENT" and found:
            found[-1].instructions.append((instruction, value))
    return found


def runtime_env() -> dict[str, str]:
    """The final stage's ENV, as ``docker inspect`` shows it."""
    return DockerfileParser(path=str(REPO / "Dockerfile")).envs


def exec_form(value: str) -> list[str]:
    """An instruction in JSON (exec) form as its argv; fails on shell form."""
    argv = json.loads(value)
    assert isinstance(argv, list) and all(isinstance(a, str) for a in argv), value
    return argv


def healthcheck(value: str) -> tuple[dict[str, str], list[str]]:
    """``HEALTHCHECK [--opt=value ...] CMD command`` as (options, argv); a shell-form
    command runs as ``/bin/sh -c command``, as Docker runs it."""
    match = re.fullmatch(r"((?:--[\w-]+=\S+\s+)*)CMD\s+(.*)", value.strip(), re.DOTALL)
    assert match, f"HEALTHCHECK without CMD: {value}"
    options = dict(opt[2:].split("=", 1) for opt in match.group(1).split())
    command = match.group(2).strip()
    argv = exec_form(command) if command.startswith("[") else ["/bin/sh", "-c", command]
    return options, argv


def copies(stage: Stage) -> list[tuple[list[str], str]]:
    """Each ``COPY [--flag ...] SRC... DEST`` of a context copy as (sources, dest)."""
    found = []
    for value in stage.values("COPY"):
        words = [w for w in shlex.split(value) if not w.startswith("--")]
        assert "--from" not in value, "the stages share files through RUN --mount, not COPY"
        found.append((words[:-1], words[-1]))
    return found


def run_command(value: str) -> str:
    """A shell-form ``RUN`` without its ``--mount``/``--network`` options."""
    return re.sub(r"^(?:--\S+\s+)+", "", value.strip())


def ignore_patterns() -> list[str]:
    """``.dockerignore`` lines as the Docker client reads them (no comments, blanks)."""
    lines = (REPO / ".dockerignore").read_text().splitlines()
    return [line.strip() for line in lines if line.strip() and not line.strip().startswith("#")]


def build_context() -> set[str]:
    """The files (relative paths) of this checkout that ``docker build .`` sends."""
    kept = exclude_paths(str(REPO), ignore_patterns())
    return {path for path in kept if (REPO / path).is_file()}


def required_python() -> str:
    """The oldest Python pyproject.toml allows (``requires-python = ">=3.11"``)."""
    spec = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["requires-python"]
    match = re.fullmatch(r">=\s*(\d+\.\d+)", spec)
    assert match, spec
    return match.group(1)


# ---------------------------------------------------------------------------
# the Dockerfile's instructions


def test_two_stages_on_the_same_slim_python():
    builder, runtime = stages()
    expected = f"python:{required_python()}-slim"
    assert (builder.base, builder.name) == (expected, "builder")
    assert (runtime.base, runtime.name) == (expected, "runtime")
    wheel = run_command(builder.last("RUN"))
    assert "pip wheel" in wheel and "--wheel-dir /wheels" in wheel
    installs = [v for v in runtime.values("RUN") if "pip install" in v]
    assert len(installs) == 1
    assert "--mount=type=bind,from=builder,source=/wheels,target=/wheels" in installs[0]
    assert "--no-index --find-links /wheels" in installs[0]
    # the runtime takes nothing from the source tree but the calendars
    assert copies(runtime) == [(["calendars"], "/opt/duetime/calendars")]


def test_runs_as_a_user_that_owns_the_ledger_volume():
    runtime = stages()[-1]
    user = runtime.last("USER")
    uid, _, gid = user.partition(":")
    assert uid.isdigit() and int(uid) != 0 and gid.isdigit() and int(gid) != 0
    # USER comes before ENTRYPOINT/CMD, so the server never runs as root
    order = [name for name, _ in runtime.instructions]
    assert order.index("USER") < order.index("ENTRYPOINT")
    setup = " ".join(runtime.values("RUN"))
    assert f"useradd --system --uid {uid} --gid {gid}" in setup
    volumes = exec_form(runtime.last("VOLUME"))
    assert volumes == ["/var/lib/duetime"]
    assert f"chown {uid}:{gid} {volumes[0]}" in setup
    env = runtime_env()
    assert PurePosixPath(env["DUETIME_DB"]).parent == PurePosixPath(volumes[0])
    assert runtime.last("WORKDIR") == volumes[0]


def test_configuration_ports_health_and_stop():
    runtime = stages()[-1]
    env = runtime_env()
    assert env["DUETIME_HOST"] == "0.0.0.0"
    assert env["DUETIME_CALENDARS"] == "/opt/duetime/calendars"
    exposed = {int(p) for p in runtime.last("EXPOSE").split()}
    assert exposed == {int(env["DUETIME_PORT"]), int(env["DUETIME_METRICS_PORT"]), 8080}
    assert int(env["DUETIME_PORT"]) == 50051 and int(env["DUETIME_METRICS_PORT"]) == 9464
    assert runtime.last("STOPSIGNAL") == "SIGTERM"
    assert exec_form(runtime.last("ENTRYPOINT")) == ["duetime"]
    assert exec_form(runtime.last("CMD")) == ["serve"]
    options, argv = healthcheck(runtime.last("HEALTHCHECK"))
    assert options == {"interval": "15s", "timeout": "5s", "start-period": "30s", "retries": "3"}
    assert argv[:2] == ["/bin/sh", "-c"]
    assert argv[2].startswith('duetime health --server "127.0.0.1:${DUETIME_PORT:-50051}"')


def test_every_duetime_variable_is_one_serve_reads():
    """The image sets only DUETIME_* variables that ``duetime serve --help`` names."""
    usage = subprocess.run([sys.executable, "-m", "duetime", "serve", "--help"],
                           capture_output=True, text=True, timeout=60, check=True).stdout
    named = {name for name in runtime_env() if name.startswith("DUETIME_")}
    assert named == {"DUETIME_HOST", "DUETIME_PORT", "DUETIME_METRICS_PORT", "DUETIME_DB",
                     "DUETIME_CALENDARS"}
    assert {name for name in named if f"[{name}]" not in usage} == set()


def test_operations_guide_lists_every_setting_and_the_image_values():
    """docs/operations.md "Every setting": one row per ``duetime serve`` setting
    (flag and variable as the server defines them), its image column the
    Dockerfile's ENV value, empty where the image leaves the default."""
    guide = (REPO / "docs" / "operations.md").read_text()
    table = guide.split("\n## Every setting\n", 1)[1]
    rows = [[cell.strip().strip("`") for cell in line.strip("|").split("|")]
            for line in table.splitlines() if line.startswith("| `--")]
    env = runtime_env()
    assert [(flag.split()[0], variable) for flag, variable, _, _ in rows] == [
        (setting.flag, setting.env) for setting in SETTINGS]
    assert {variable: image for _, variable, _, image in rows if image} == {
        name: value for name, value in env.items() if name.startswith("DUETIME_")}


# ---------------------------------------------------------------------------
# .dockerignore


def test_dockerignore_keeps_the_context_to_what_the_build_copies():
    # the Docker client always sends the Dockerfile and .dockerignore
    matcher = PatternMatcher([*ignore_patterns(), "!Dockerfile"])
    listed = subprocess.run(["git", "ls-files"], cwd=REPO, capture_output=True, text=True,
                            timeout=60, check=True).stdout.splitlines()
    tracked = {*listed, "Dockerfile", ".dockerignore"}
    kept = {path for path in tracked if not matcher.matches(path)}
    expected = {path for path in tracked
                if path in {"pyproject.toml", "README.md", "Dockerfile", ".dockerignore"}
                or path.startswith(("service/", "calendars/"))}
    assert kept == expected
    for path in ("tests/test_e2e.py", "bench/run.sh", "docs/semantics.md", ".ci/run",
                 "examples/temporal/worker.py"):
        assert path in tracked and matcher.matches(path), path
    junk = [
        ".git/HEAD", ".venv/bin/python", "bench/.venv/bin/python", ".env",
        "service/duetime/__pycache__/app.cpython-311.pyc", "service/duetime/cli.pyc",
        "service/duetime.egg-info/PKG-INFO", "build/lib/duetime/app.py", "dist/duetime.whl",
        ".pytest_cache/v/cache/nodeids", ".hypothesis/examples/0/1", "tests/__pycache__/x.pyc",
        "service/.pytest_cache/README.md", "service/.hypothesis/examples/0",
        "ledger.db", "ledger.db-wal", "ledger.db-shm", "ledger.db-writer", "service/ledger.db",
        "calendars/ledger.db", "calendars/compiled/hr-zagreb/ledger.db-wal",
        "tls/server.key", "calendars/server.key", "service/ca.pem",
        "calendars/hr-zagreb.toml.swp", "calendars/hr-zagreb.toml~",
    ]
    assert [path for path in junk if not matcher.matches(path)] == []


# ---------------------------------------------------------------------------
# the image, assembled and run outside a container


def lay_out(context: set[str], stage: Stage, root: Path) -> None:
    """Carry out ``stage``'s COPY lines from the build context into ``root``
    (a stand-in for the container's /), relative destinations against WORKDIR."""
    workdir = PurePosixPath("/")
    for name, value in stage.instructions:
        if name == "WORKDIR":
            workdir = workdir / value
            (root / str(workdir).lstrip("/")).mkdir(parents=True, exist_ok=True)
        if name != "COPY":
            continue
        words = [w for w in shlex.split(value) if not w.startswith("--")]
        sources, dest = words[:-1], workdir / words[-1]
        into_dir = words[-1].endswith("/") or len(sources) > 1
        for source in sources:
            if source in context:  # a file: into DEST/ or as DEST
                targets = {source: dest / PurePosixPath(source).name if into_dir else dest}
            else:  # a directory: its contents into DEST
                targets = {path: dest / path[len(source) + 1:]
                           for path in context if path.startswith(source + "/")}
            assert targets, f"COPY {source}: not in the build context"
            for path, target in targets.items():
                out = root / str(target).lstrip("/")
                out.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(REPO / path, out)


def base_env() -> dict[str, str]:
    """This process's environment without pip or duetime settings, with this
    interpreter's ``python`` first on PATH."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("PIP_", "DUETIME_")) and k != "PYTHONPATH"}
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"
    return env


def offline_pip_env(**extra: str) -> dict[str, str]:
    """The environment for the Dockerfile's pip commands here: no index, no
    dependencies (they are installed here already), no isolated build env
    (pip's PIP_NO_BUILD_ISOLATION=0 means --no-build-isolation)."""
    return {**base_env(), "PIP_NO_INDEX": "1", "PIP_NO_DEPS": "1", "PIP_NO_BUILD_ISOLATION": "0",
            "PIP_CONFIG_FILE": os.devnull, "PIP_DISABLE_PIP_VERSION_CHECK": "1", **extra}


def mapped(command: str, container_path: str, here: Path) -> str:
    return command.replace(container_path, str(here))


@pytest.fixture(scope="module")
def image(tmp_path_factory) -> dict:
    """The runtime stage laid out under a temporary root: its installed wheel
    (``site``), calendars, ENV mapped to that root, and the wheel itself."""
    tmp = tmp_path_factory.mktemp("image")
    builder, runtime = stages()
    context = build_context()

    # builder: COPY, then its RUN as written (/wheels mapped into the temporary root)
    build_root = tmp / "builder"
    lay_out(context, builder, build_root)
    wheels = build_root / "wheels"
    wheel_command = mapped(run_command(builder.last("RUN")), "/wheels", wheels)
    built = subprocess.run(["/bin/sh", "-c", wheel_command], check=False,
                           cwd=build_root / builder.last("WORKDIR").lstrip("/"),
                           env=offline_pip_env(), capture_output=True, text=True, timeout=300)
    assert built.returncode == 0, built.stdout + built.stderr
    [wheel] = wheels.glob("duetime-*.whl")

    # runtime: its pip install as written, into a directory, then its COPY lines
    run_root = tmp / "runtime"
    site = run_root / "site"
    [install] = [v for v in runtime.values("RUN") if "pip install" in v]
    installed = subprocess.run(["/bin/sh", "-c", mapped(run_command(install), "/wheels", wheels)],
                               env=offline_pip_env(PIP_TARGET=str(site)), capture_output=True,
                               text=True, timeout=300, check=False)
    assert installed.returncode == 0, installed.stdout + installed.stderr
    lay_out(context, runtime, run_root)
    return {"root": run_root, "site": site, "wheel": wheel, "runtime": runtime}


def test_builder_wheel_holds_the_package_and_its_command(image):
    sources = {path[len("service/"):] for path in build_context()
               if path.startswith("service/duetime/")}
    with zipfile.ZipFile(image["wheel"]) as wheel:
        names = set(wheel.namelist())
        [info] = {n.split("/")[0] for n in names if n.split("/")[0].endswith(".dist-info")}
        entry_points = wheel.read(f"{info}/entry_points.txt").decode()
        metadata = wheel.read(f"{info}/METADATA").decode()
    # every file of the package, code or not (the runtime has nothing else of service/)
    assert sources - names == set()
    assert "duetime = duetime.__main__:main" in entry_points
    assert "Provides-Extra: postgres" in metadata
    assert not any(n.startswith(("tests/", "calendars/")) for n in names)


def container_env(image: dict, volume: Path, ports: dict[str, int]) -> dict[str, str]:
    """The Dockerfile's ENV for a process here: container paths mapped under the
    laid-out root (the volume to ``volume``), 0.0.0.0 to 127.0.0.1, each exposed
    port's variable to a free port; the installed wheel first on the paths."""
    runtime = image["runtime"]
    exposed = set(runtime.last("EXPOSE").split())
    [volume_path] = exec_form(runtime.last("VOLUME"))
    env = base_env()
    for name, value in runtime_env().items():
        if value.startswith(volume_path + "/") or value == volume_path:
            value = str(volume / value[len(volume_path):].lstrip("/"))
        elif value.startswith("/"):
            value = str(image["root"] / value.lstrip("/"))
            assert Path(value).exists(), f"{name}: nothing at {value} in the image"
        elif value == "0.0.0.0":
            value = "127.0.0.1"
        elif name.endswith("_PORT") and value in exposed:
            ports[name] = free_port()
            value = str(ports[name])
        env[name] = value
    env["PATH"] = f"{image['site'] / 'bin'}{os.pathsep}{env['PATH']}"
    env["PYTHONPATH"] = str(image["site"])
    return env


class Container:
    """The image's ENTRYPOINT + CMD, as written, running here with ``env``
    (see :func:`container_env`) in the volume directory (its WORKDIR)."""

    def __init__(self, image: dict, env: dict[str, str], volume: Path):
        runtime = image["runtime"]
        self.env = env
        self.stderr: list[str] = []
        self.probe = healthcheck(runtime.last("HEALTHCHECK"))[1]
        self.stop_signal = getattr(signal, runtime.last("STOPSIGNAL"))
        argv = exec_form(runtime.last("ENTRYPOINT")) + exec_form(runtime.last("CMD"))
        self.proc = subprocess.Popen(argv, cwd=volume, env=env, stdin=subprocess.DEVNULL,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        lines: queue.Queue[str | None] = queue.Queue()
        threading.Thread(target=self._drain, args=(lines,), daemon=True).start()
        try:
            self.port = self._await_port(lines)
        except BaseException:
            self.kill()
            raise

    def _await_port(self, lines: queue.Queue) -> int:
        while True:
            try:
                line = lines.get(timeout=STARTUP_TIMEOUT)
            except queue.Empty:
                raise AssertionError("no listening line: " + self.log()) from None
            assert line is not None, "server exited: " + self.log()
            if match := LISTENING.search(line):
                return int(match.group(1))

    def _drain(self, lines: queue.Queue) -> None:
        for line in self.proc.stderr:
            self.stderr.append(line)
            lines.put(line)
        lines.put(None)

    def log(self) -> str:
        return "".join(self.stderr)

    def healthcheck(self, env: dict[str, str] | None = None) -> tuple[int, str]:
        """The HEALTHCHECK command as written: (exit code, what it printed)."""
        probe = subprocess.run(self.probe, env=env or self.env, capture_output=True, text=True,
                               timeout=PROBE_TIMEOUT, check=False)
        return probe.returncode, (probe.stdout + probe.stderr).strip()

    def stop(self) -> int:
        """``docker stop``: the STOPSIGNAL, then the exit code (bounded wait)."""
        self.proc.send_signal(self.stop_signal)
        return self.proc.wait(timeout=STOP_TIMEOUT)

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


def test_entrypoint_serves_and_the_healthcheck_passes(image, tmp_path):
    volume = tmp_path / "volume"
    volume.mkdir()
    ports: dict[str, int] = {}
    env = container_env(image, volume, ports)
    imported = subprocess.run(["python", "-c", "import duetime; print(duetime.__file__)"],
                              env=env, capture_output=True, text=True, timeout=60, check=True)
    assert Path(imported.stdout.strip()).is_relative_to(image["site"])

    container = Container(image, env, volume)
    try:
        assert container.port == ports["DUETIME_PORT"]
        assert container.healthcheck() == (0, "SERVING")

        # a bundle baked into the image answers, recorded in the ledger on the volume
        request = pb.ComputeDueTimeRequest(duration="3bd", calendar=pb.Calendar(bundle="hr-zagreb"),
                                           idempotency_key="image-check")
        request.start.FromJsonString("2026-11-27T15:00:00Z")
        with grpc.insecure_channel(f"127.0.0.1:{container.port}") as channel:
            answer = pb_grpc.DueTimeServiceStub(channel).ComputeDueTime(request, timeout=10)
        assert answer.due_local == "2026-12-02T16:00:00+01:00"
        assert answer.calendar_version.startswith("hr-zagreb@")
        assert (volume / "ledger.db").is_file()
        assert f"calendars loaded from {env['DUETIME_CALENDARS']}" in container.log()

        # metrics are on in the image, on DUETIME_METRICS_PORT
        metrics_url = f"http://127.0.0.1:{ports['DUETIME_METRICS_PORT']}/metrics"
        with urllib.request.urlopen(metrics_url, timeout=10) as reply:
            metrics = reply.read().decode()
        assert ('duetime_rpc_requests_total{code="OK",'
                'method="/duetime.v1.DueTimeService/ComputeDueTime"} 1.0') in metrics
        assert re.search(r'^duetime_bundle_info\{bundle="hr-zagreb",rules_version="[^"]+",'
                         + f'version="{answer.calendar_version.split("@")[1]}"' + r'\} 1\.0$',
                         metrics, re.MULTILINE)

        assert container.stop() == 0, container.log()
    finally:
        container.kill()
    code, said = container.healthcheck()
    assert code == 1 and said.startswith("UNAVAILABLE"), said


def test_healthcheck_under_mutual_tls_with_the_documented_arguments(image, tmp_path):
    """docs/operations.md: with TLS on, DUETIME_HEALTH_ARGS gives the probe its
    CA and client certificate; the server's certificate names 127.0.0.1."""
    pki = make_pki(tmp_path)
    volume = tmp_path / "volume"
    volume.mkdir()
    env = container_env(image, volume, {})
    env.update(DUETIME_TLS_CERT=str(pki.server), DUETIME_TLS_KEY=str(pki.server_key),
               DUETIME_TLS_CLIENT_CA=str(pki.ca))
    container = Container(image, env, volume)
    try:
        code, said = container.healthcheck()
        assert code == 1 and said.startswith("UNAVAILABLE"), said  # no TLS flags: refused
        probe_env = dict(env, DUETIME_HEALTH_ARGS=f"--tls-ca {pki.ca} --tls-cert {pki.client} "
                                                  f"--tls-key {pki.client_key}")
        assert container.healthcheck(probe_env) == (0, "SERVING")
        assert container.stop() == 0, container.log()
    finally:
        container.kill()
