"""The reaper's view of one stack's bucket: node reports with the store's own LastModified, a
lease lock, and the audit trail, each through fsspec with options built from THAT stack's outputs.

Per-stack access: a stack's outputs name how its bucket is reached (Azure: `storage_account`, or
the account in an `abfs://container@account.dfs.core.windows.net` URL; S3: `region`; GCS:
`project`; OSS: `region` for the endpoint). adlfs otherwise takes AZURE_STORAGE_CONNECTION_STRING
over the account in the URL, so with one connection string in the environment two Azure stacks
were judged on one stack's heartbeats. Here a connection string is used only for the account it
names (AZURE_STORAGE_CONNECTION_STRING, or TRAINSTACK_AZURE_CONNECTION_STRING_<ACCOUNT>); any
other account goes through DefaultAzureCredential (the workflow's OIDC login), and a stack that
names no account is not read at all. Every filesystem skips fsspec's instance cache, whose key
does not include the environment.
"""
from __future__ import annotations

import contextvars
import json
import os
import re
import socket
import threading
import uuid
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import Any, Iterator, Mapping, Optional

from trainstack_components.lifetime import iso, parse_iso, utc_now

STORE_TIMEOUT_S = 60          # per request: a store that stops answering is an error, not a hang
# Longer than the workflow's per-stack limit (STACK_TIME_LIMIT 230 min + timeout's 2 min
# kill-after), which holds the export (3 h), the Azure scale-down (30 min) and the destroy: a
# live reaper's lease never expires under it; a SIGKILLed one's does.
LEASE = timedelta(hours=4)
_ENV_LOCK = threading.Lock()


class StoreUnreachable(RuntimeError):
    pass


# -- per-stack access -------------------------------------------------------------------------

def _connection_account(connection: str) -> Optional[str]:
    match = re.search(r"(?:^|;)AccountName=([^;]+)", connection or "")
    return match.group(1) if match else None


def azure_account(url: str, outputs: dict) -> Optional[str]:
    match = re.match(r"^(?:abfss?|az)://[^/@]+@([^./]+)\.(?:dfs|blob)\.", url)
    return match.group(1) if match else (outputs.get("storage_account") or None)


def storage_options(url: str, outputs: dict,
                    env: Optional[Mapping[str, str]] = None) -> dict[str, Any]:
    """fsspec options for this stack's bucket, from its own outputs (see the module doc)."""
    env = os.environ if env is None else env
    scheme = url.split("://", 1)[0]
    options: dict[str, Any] = {"skip_instance_cache": True}
    if scheme in ("abfs", "abfss", "az"):
        options.update(connection_timeout=STORE_TIMEOUT_S, read_timeout=STORE_TIMEOUT_S)
        account = azure_account(url, outputs)
        if not account:
            raise StoreUnreachable("the stack names no storage account (output storage_account); "
                                   "a shared AZURE_STORAGE_CONNECTION_STRING could read another "
                                   "stack's container, so it is not read")
        for candidate in (env.get(f"TRAINSTACK_AZURE_CONNECTION_STRING_{account.upper()}"),
                          env.get("AZURE_STORAGE_CONNECTION_STRING")):
            if candidate and _connection_account(candidate) == account:
                return {**options, "connection_string": candidate}
        return {**options, "account_name": account, "anon": False, "connection_string": None}
    if scheme == "s3":
        options["config_kwargs"] = {"connect_timeout": STORE_TIMEOUT_S,
                                    "read_timeout": STORE_TIMEOUT_S}
        if outputs.get("region"):
            options["client_kwargs"] = {"region_name": outputs["region"]}
    if scheme in ("gs", "gcs") and outputs.get("project"):
        options["project"] = outputs["project"]
    if scheme == "oss":
        # ossfs needs the endpoint; the keys are the workflow's OIDC-assumed STS credentials.
        # OSS_ENDPOINT (ossfs's own variable) overrides it for every bucket: a VPC-internal
        # endpoint, or the tests' stand-in.
        if env.get("OSS_ENDPOINT"):
            options["endpoint"] = env["OSS_ENDPOINT"]
        elif outputs.get("region"):
            options["endpoint"] = f"https://oss-{outputs['region']}.aliyuncs.com"
        for option, var in (("key", "ALIBABA_CLOUD_ACCESS_KEY_ID"),
                            ("secret", "ALIBABA_CLOUD_ACCESS_KEY_SECRET"),
                            ("token", "ALIBABA_CLOUD_SECURITY_TOKEN")):
            if env.get(var):
                options[option] = env[var]
    return options


class StsFileCredentials:
    """oss2's credentials provider over a JSON file of STS keys (AssumeRoleWithOIDC's
    `Credentials`: AccessKeyId, AccessKeySecret, SecurityToken), read again whenever the file
    changes. STS keys last an hour by default, a reap may take four: the workflow rewrites the
    file every 40 min, and every OSS request is signed with what it holds then."""

    def __init__(self, path: str):
        self.path = path
        self._seen: Optional[int] = None
        self._keys: Any = None

    def get_credentials(self):
        from oss2.credentials import Credentials
        stamp = os.stat(self.path).st_mtime_ns
        if stamp != self._seen:
            with open(self.path) as held:
                keys = json.load(held)
            self._keys = Credentials(keys["AccessKeyId"], keys["AccessKeySecret"],
                                     keys.get("SecurityToken", ""))
            self._seen = stamp
        return self._keys


# The filesystems made during one reaper run (`reusing_filesystems`), by what made them: None
# outside a run (every call makes a new one). Per context, so two runs in two threads never share.
_MADE: contextvars.ContextVar[Optional[dict]] = contextvars.ContextVar("trainstack_reap_stores",
                                                                      default=None)


@contextmanager
def reusing_filesystems() -> Iterator[None]:
    """Within: `filesystem` hands out the filesystem it made before for the same URL, the same
    options and the same environment, with nothing cached in it (its listings dropped, as a new
    one has none), instead of a new one. A new filesystem is a new client: on S3 a new botocore
    session that loads and parses the service model and walks botocore's data folder (about
    0.2 CPU s, ten times what a listing then costs), and the reaper opens a stack's store at the
    first look, at the lock, at each re-check and for every audit line. The key is what the new
    one would be made from, the environment whole included (fsspec's own instance cache leaves
    the environment out, so it stays skipped)."""
    token = _MADE.set({})
    try:
        yield
    finally:
        _MADE.reset(token)


def filesystem(url: str, outputs: dict):
    made = _MADE.get()
    if made is None:
        return _new_filesystem(url, outputs)
    key = (url, json.dumps(outputs, sort_keys=True, default=repr), tuple(sorted(os.environ.items())))
    if key not in made:
        made[key] = _new_filesystem(url, outputs)
    fs, path = made[key]
    fs.invalidate_cache()
    fs.dircache.clear()
    return fs, path


def _new_filesystem(url: str, outputs: dict):
    import fsspec
    options = storage_options(url, outputs)
    sts_file = os.environ.get("TRAINSTACK_OSS_STS_FILE")
    if url.startswith("oss://") and sts_file:
        import oss2
        fs, path = fsspec.core.url_to_fs(url, **options)
        # ossfs signs each request with its `_auth` (oss2's advice for STS keys: give the
        # client a new auth when they are renewed); this one reads the file each time.
        fs._auth = oss2.ProviderAuth(StsFileCredentials(sts_file))
        return fs, path
    if options.get("connection_string", "") is None:
        # adlfs falls back to AZURE_STORAGE_CONNECTION_STRING when given none: hide it while
        # this one filesystem is built (the client is made in __init__).
        options.pop("connection_string")
        with _ENV_LOCK:
            saved = os.environ.pop("AZURE_STORAGE_CONNECTION_STRING", None)
            try:
                return fsspec.core.url_to_fs(url, **options)
            finally:
                if saved is not None:
                    os.environ["AZURE_STORAGE_CONNECTION_STRING"] = saved
    return fsspec.core.url_to_fs(url, **options)


# -- reports ----------------------------------------------------------------------------------

def modified(info: dict) -> Optional[datetime]:
    """The store's own write time of an object (s3fs LastModified, adlfs last_modified, gcsfs
    updated, local mtime)."""
    for key in ("LastModified", "last_modified", "updated", "mtime", "created"):
        value = info.get(key)
        if value is None:
            continue
        if isinstance(value, datetime):
            return value if value.tzinfo else value.replace(tzinfo=timezone.utc)
        if isinstance(value, (int, float)):
            return datetime.fromtimestamp(float(value), timezone.utc)
        try:
            return parse_iso(str(value))
        except ValueError:
            continue
    return None


@dataclass
class NodeReport:
    node: str
    written: Optional[datetime]        # the store's LastModified
    beat: Optional[dict]               # None: unreadable
    error: str = ""


class StackStore:
    """One stack's heartbeat prefix and the reaper's objects next to it."""

    def __init__(self, root: str, outputs: dict):
        self.root = root.rstrip("/")
        self.fs, path = filesystem(self.root, outputs)
        self.path = path.rstrip("/")
        self.parent = self.path.rsplit("/", 1)[0] if "/" in self.path else self.path

    def reports(self) -> dict[str, NodeReport]:
        """Every `<node>.json` with the store's write time; an unreadable object is a report
        that says so (its node is then unknown, never idle)."""
        try:
            listing = self.fs.ls(self.path, detail=True, refresh=True)
        except FileNotFoundError:
            listing = []
        if not listing and not _bucket_exists(self.fs, self.path):
            raise StoreUnreachable(f"{self.root}: the bucket does not exist")
        found = {}
        for info in listing:
            name = info["name"].rstrip("/")
            if not name.endswith(".json") or info.get("type") == "directory":
                continue
            node = name.rsplit("/", 1)[-1][:-len(".json")]
            written = modified(info) or modified(self.fs.info(name))
            try:
                beat = json.loads(self.fs.cat_file(name))
                if not isinstance(beat, dict) or "node" not in beat:
                    raise ValueError("not a heartbeat")
                found[node] = NodeReport(node, written, beat)
            except Exception as failed:  # noqa: BLE001 (the node becomes unknown, and says why)
                found[node] = NodeReport(node, written, None, f"{type(failed).__name__}: {failed}")
        return found

    # -- small reaper objects, outside heartbeats/ so they are never read as a node ----------
    def _reaper(self, *parts: str) -> str:
        return "/".join([self.parent, "reaper", *parts])

    def put_json(self, key: str, value: dict) -> None:
        path = self._reaper(key)
        self.fs.makedirs(path.rsplit("/", 1)[0], exist_ok=True)
        # One PUT (ossfs's open("wb") checks, deletes, then appends: three calls, not one).
        self.fs.pipe_file(path, json.dumps(value, sort_keys=True).encode())

    def get_json(self, key: str) -> Optional[dict]:
        try:
            return json.loads(self.fs.cat_file(self._reaper(key)))
        except FileNotFoundError:
            return None

    def remove(self, key: str) -> None:
        try:
            self.fs.rm(self._reaper(key))
        except FileNotFoundError:
            pass

    def audit(self, stack: str, record: dict) -> None:
        """One object per decision: object stores have no append."""
        safe = stack.replace("/", "_")
        self.put_json(f"audit/{safe}/{record['time']}-{uuid.uuid4().hex[:8]}.json", record)

    def lease(self, stack: str, ttl: timedelta = LEASE) -> "Lease":
        return Lease(self.fs, f"{self.path}/reaper-{stack.replace('/', '_')}.lease", ttl)


def _bucket_exists(fs, path: str) -> bool:
    protocols = fs.protocol if isinstance(fs.protocol, (tuple, list)) else (fs.protocol,)
    where = path.rsplit("/", 1)[0] if "file" in protocols else path.split("/", 1)[0]
    try:
        return bool(fs.exists(where))
    except Exception:  # noqa: BLE001 (a bucket we may not see is not there for us)
        return False


class LeaseUnsupported(RuntimeError):
    """The store gives no atomic create-if-absent through its fsspec filesystem."""


def _create_on_oss(fs, path: str, data: bytes) -> None:
    """PutObject that OSS itself refuses when the object exists (x-oss-forbid-overwrite); its
    409 FileAlreadyExists (which ossfs turns into a bare OSError) becomes FileExistsError."""
    try:
        fs.pipe_file(path, data, headers={"x-oss-forbid-overwrite": "true"})
    except OSError as failed:
        cause = failed.__cause__
        if getattr(cause, "status", None) == 409 \
                and getattr(cause, "code", None) == "FileAlreadyExists":
            raise FileExistsError(path) from failed
        raise


def _new_holder() -> str:
    return f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"


class Lease:
    """A lock with a holder, an owner token and an expiry, kept as numbered versions under one
    prefix (`<n>.json`, n = 1, 2, ...): the newest version is the lease. Every change (take,
    take-over of an expired lease, release) writes version n+1 with an atomic create-if-absent,
    so it is a conditional write on the version it read: of two reapers that both read an
    expired version n, exactly one creates n+1 and the other is told the lease is held. Atomic
    create is O_EXCL on file://, `If-None-Match: *` on S3 (s3fs mode "xb") and on Azure Blob
    (adlfs "xb"), `ifGenerationMatch=0` on GCS (one multipart upload; GCS answers 412 when the
    object exists: https://cloud.google.com/storage/docs/request-preconditions), and on OSS a
    PutObject with `x-oss-forbid-overwrite: true` (409 FileAlreadyExists when the object exists:
    https://help.aliyun.com/en/oss/user-guide/0026-00000002; ossfs's own open("xb") only checks
    for the object first, which is not atomic). Any other store is refused (LeaseUnsupported)
    and nothing is reaped there. Versions are never deleted (a deleted number could be created
    again). Tested with interleaved take-overs on file://, moto S3, Azurite, fake-gcs-server and
    the OSS stand-in (tests/oss_stand_in.py).

    The owner token is this Lease object's: a create whose acknowledgement was lost (the write
    landed, the answer did not) is recognised as its own when it is read back."""

    ATOMIC_CREATE = {"file", "local", "s3", "s3a", "abfs", "abfss", "az", "gs", "gcs", "oss"}

    def __init__(self, fs, path: str, ttl: timedelta = LEASE, holder: Optional[str] = None):
        self.fs, self.path, self.ttl = fs, path.rstrip("/"), ttl
        self.holder_id = holder or _new_holder()
        self.broken: Optional[dict] = None
        self.version: Optional[int] = None   # the version this lease wrote and holds

    def _protocols(self) -> set[str]:
        protocol = self.fs.protocol
        return set(protocol if isinstance(protocol, (tuple, list)) else (protocol,))

    def _check_atomic(self) -> None:
        protocols = sorted(self._protocols())
        if not set(protocols) & self.ATOMIC_CREATE:
            raise LeaseUnsupported(
                f"{'/'.join(protocols)}: no atomic create-if-absent through this filesystem, so "
                "two reapers could both take the lease; not reaped here")

    def _at(self, version: int) -> str:
        return f"{self.path}/{version:010d}.json"

    def _versions(self) -> list[int]:
        self.fs.invalidate_cache(self.path)   # adlfs lists from its cache despite refresh=True
        try:
            names = self.fs.ls(self.path, detail=False, refresh=True)
        except FileNotFoundError:
            return []
        found = []
        for name in names:
            match = re.fullmatch(r"(\d{10})\.json", str(name).rstrip("/").rsplit("/", 1)[-1])
            if match:
                found.append(int(match.group(1)))
        return sorted(found)

    def _read(self, version: int) -> Optional[dict]:
        try:
            body = json.loads(self.fs.cat_file(self._at(version)))
            if not isinstance(body, dict):
                raise ValueError("not a lease")
        except FileNotFoundError:
            return None
        except Exception:  # noqa: BLE001 (a torn lease body: judged by its write time)
            written = modified(self.fs.info(self._at(version))) or utc_now()
            body = {"holder": "unreadable", "expires": iso(written + self.ttl)}
        return {**body, "version": version}

    def current(self) -> Optional[dict]:
        """The newest version's body (with its `version`), or None when there is none."""
        versions = self._versions()
        return self._read(versions[-1]) if versions else None

    def _create(self, version: int, body: dict) -> bool:
        """Create version `version` if it does not exist; True when this lease wrote it."""
        path = self._at(version)
        try:
            self.fs.makedirs(self.path, exist_ok=True)
            if "oss" in self._protocols():
                _create_on_oss(self.fs, path, json.dumps(body).encode())
            elif self._protocols() & {"gs", "gcs"}:
                # One multipart upload with ifGenerationMatch=0 (gcsfs pipe_file mode="create"):
                # GCS answers 412 when the object exists, which gcsfs raises as FileExistsError.
                # gcsfs's open("xb") goes through a resumable session instead, and
                # fake-gcs-server (the stand-in) drops the precondition there.
                self.fs.pipe_file(path, json.dumps(body).encode(), mode="create")
            else:
                with self.fs.open(path, "xb") as out:
                    out.write(json.dumps(body).encode())
            return True
        except FileExistsError:
            written = self._read(version)
            # A retry (by the SDK or ours) of a create that had landed: ours all the same.
            return written is not None and written.get("token") == body["token"]
        except Exception:
            # The answer was lost: whether the write landed is read back, by its owner token.
            written = self._read(version)
            if written is not None:
                return written.get("token") == body["token"]
            raise

    def acquire(self, now: Optional[datetime] = None) -> bool:
        self._check_atomic()
        now = now or utc_now()
        held = self.current()
        if held is not None and held.get("token") == self.holder_id and not held.get("released"):
            self.version = held["version"]   # our own (an acknowledgement lost on the way)
            return True
        if held is not None and not held.get("released"):
            try:
                expires = parse_iso(str(held.get("expires")))
            except ValueError:
                expires = now  # a lease without a readable expiry: treat it as expired
            if now < expires:
                return False
        version = held["version"] + 1 if held else 1
        body = {"holder": self.holder_id, "token": self.holder_id, "host": socket.gethostname(),
                "pid": os.getpid(), "time": iso(now), "expires": iso(now + self.ttl)}
        if not self._create(version, body):
            return False   # another reaper wrote version n+1 first
        self.version = version
        if held is not None and not held.get("released"):
            self.broken = held
        return True

    def still_ours(self) -> bool:
        """The newest version is the one this lease wrote (no other reaper took it over since,
        even after it expired): read before a step that must not run twice."""
        held = self.current()
        return held is not None and held.get("token") == self.holder_id \
            and not held.get("released")

    def holder(self) -> str:
        try:
            return json.dumps(self.current())
        except Exception:  # noqa: BLE001 (only for the report)
            return "unknown"

    def release(self) -> None:
        """Write `released` over our version (only if it is still the newest: a lease broken
        and retaken by another reaper is not ours to release)."""
        held = self.current()
        if held is None or held.get("token") != self.holder_id or held.get("released"):
            return
        self._create(held["version"] + 1, {"holder": self.holder_id, "token": self.holder_id,
                                           "released": True, "time": iso(utc_now())})
        self.version = None
