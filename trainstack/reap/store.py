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

import json
import os
import re
import socket
import threading
import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import Any, Mapping, Optional

from trainstack_components.lifetime import iso, parse_iso, utc_now

STORE_TIMEOUT_S = 60          # per request: a store that stops answering is an error, not a hang
LEASE = timedelta(hours=3)   # longer than an export plus a destroy; a killed reaper's lock expires
_ENV_LOCK = threading.Lock()
HOLDER = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"


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
        if outputs.get("region"):
            options["endpoint"] = f"https://oss-{outputs['region']}.aliyuncs.com"
        for option, var in (("key", "ALIBABA_CLOUD_ACCESS_KEY_ID"),
                            ("secret", "ALIBABA_CLOUD_ACCESS_KEY_SECRET"),
                            ("token", "ALIBABA_CLOUD_SECURITY_TOKEN")):
            if env.get(var):
                options[option] = env[var]
    return options


def filesystem(url: str, outputs: dict):
    import fsspec
    options = storage_options(url, outputs)
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
        with self.fs.open(path, "wb") as out:
            out.write(json.dumps(value, sort_keys=True).encode())

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
        return Lease(self.fs, f"{self.path}/reaper-{stack.replace('/', '_')}.lock", ttl)


def _bucket_exists(fs, path: str) -> bool:
    protocols = fs.protocol if isinstance(fs.protocol, (tuple, list)) else (fs.protocol,)
    where = path.rsplit("/", 1)[0] if "file" in protocols else path.split("/", 1)[0]
    try:
        return bool(fs.exists(where))
    except Exception:  # noqa: BLE001 (a bucket we may not see is not there for us)
        return False


class Lease:
    """A lock with a holder and an expiry: created exclusively (`xb`: O_EXCL locally,
    If-None-Match on S3, Azure and GCS); a lease past its expiry (a SIGKILLed or cancelled
    reaper) is broken and taken over, with the old holder named."""

    def __init__(self, fs, path: str, ttl: timedelta = LEASE, holder: str = HOLDER):
        self.fs, self.path, self.ttl, self.holder_id = fs, path, ttl, holder
        self.broken: Optional[dict] = None

    def _create(self, now: datetime) -> bool:
        body = {"holder": self.holder_id, "host": socket.gethostname(), "pid": os.getpid(),
                "time": iso(now), "expires": iso(now + self.ttl)}
        try:
            self.fs.makedirs(self.path.rsplit("/", 1)[0], exist_ok=True)
            with self.fs.open(self.path, "xb") as lock:
                lock.write(json.dumps(body).encode())
            return True
        except FileExistsError:
            return False

    def current(self) -> Optional[dict]:
        try:
            return json.loads(self.fs.cat_file(self.path))
        except FileNotFoundError:
            return None
        except Exception:  # noqa: BLE001 (a torn lock body: judged by its write time)
            info = self.fs.info(self.path)
            written = modified(info) or utc_now()
            return {"holder": "unreadable", "expires": iso(written + self.ttl)}

    def acquire(self, now: Optional[datetime] = None) -> bool:
        now = now or utc_now()
        if self._create(now):
            return True
        held = self.current()
        if held is None:
            return self._create(now)
        try:
            expires = parse_iso(str(held.get("expires")))
        except ValueError:
            expires = now  # an old-style lock without an expiry: treat it as expired
        if now < expires:
            return False
        self.broken = held
        try:
            self.fs.rm(self.path)
        except FileNotFoundError:
            pass
        return self._create(now)

    def holder(self) -> str:
        try:
            return json.dumps(self.current())
        except Exception:  # noqa: BLE001 (only for the report)
            return "unknown"

    def release(self) -> None:
        held = self.current()
        if held and held.get("holder") not in (self.holder_id, "unreadable"):
            return  # broken and retaken by another reaper: not ours to remove
        try:
            self.fs.rm(self.path)
        except FileNotFoundError:
            pass
