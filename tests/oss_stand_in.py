"""A stand-in for Alibaba Cloud OSS on loopback: the object calls ossfs (through oss2) makes for
the reaper's store, with OSS's own errors. No emulator of OSS is published on PyPI or npm, so this
holds to what OSS documents and the reaper relies on:

* PutObject with `x-oss-forbid-overwrite: true` onto an existing object is refused with HTTP 409
  and the error code FileAlreadyExists (EC 0026-00000002), and the object is left as it was:
  https://help.aliyun.com/en/oss/user-guide/0026-00000002 and
  https://www.alibabacloud.com/help/en/object-storage-service/latest/disable-overwriting-object-with-the-same-name
  The check and the write happen under one lock (OSS's own is atomic);
* an unsigned request (no Authorization header) is refused with 403 AccessDenied, and with
  `keys_file` set, one signed with an STS key it does not list with 403 SecurityTokenExpired;
* a missing bucket is 404 NoSuchBucket, a missing object 404 NoSuchKey (HEAD: no body);
* ListObjects pages by `max-keys` with IsTruncated/NextMarker, and groups by `delimiter`.

Requests are path-style (`http://127.0.0.1:PORT/<bucket>/<key>`), as oss2 sends them to an IP
endpoint. Tests reach it with OSS_ENDPOINT (trainstack/reap/store.py).
"""
from __future__ import annotations

import hashlib
import json
import threading
import uuid
from datetime import datetime, timezone
from pathlib import Path
from email.utils import format_datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, unquote, urlsplit
from xml.etree import ElementTree
from xml.sax.saxutils import escape


class OssState:
    def __init__(self):
        self.lock = threading.Lock()
        self.buckets: dict[str, dict[str, tuple[bytes, datetime, str]]] = {}
        self.requests: list[tuple[str, str, dict]] = []   # (method, /bucket/key, headers)
        self.pages: list[tuple[str, str, bool]] = []      # ListObjects: (prefix, marker, truncated)
        self.keys_file: Path | None = None   # a JSON list of the current STS AccessKeyIds


def _error(code: str, message: str, status: int, ec: str = "") -> tuple[int, bytes]:
    body = ('<?xml version="1.0" encoding="UTF-8"?>\n<Error>'
            f"<Code>{code}</Code><Message>{escape(message)}</Message>"
            f"<RequestId>{uuid.uuid4().hex[:24].upper()}</RequestId>"
            "<HostId>127.0.0.1</HostId>" + (f"<EC>{ec}</EC>" if ec else "") + "</Error>")
    return status, body.encode()


def _iso(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%S.000Z")


class _Handler(BaseHTTPRequestHandler):
    state: OssState

    def log_message(self, *args):  # quiet
        pass

    def _send(self, status: int, body: bytes = b"", headers: dict | None = None):
        self.send_response(status)
        headers = {"x-oss-request-id": uuid.uuid4().hex[:24].upper(), **(headers or {})}
        if body and "Content-Type" not in headers:
            headers["Content-Type"] = "application/xml"
        for name, value in headers.items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def _where(self):
        url = urlsplit(self.path)
        parts = url.path.lstrip("/").split("/", 1)
        bucket = unquote(parts[0])
        key = unquote(parts[1]) if len(parts) > 1 else ""
        return bucket, key, parse_qs(url.query, keep_blank_values=True)

    def _handle(self):
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        bucket, key, query = self._where()
        self.state.requests.append((self.command, unquote(urlsplit(self.path).path),
                                    dict(self.headers.items())))
        if not self.headers.get("Authorization"):
            return self._send(*_error("AccessDenied", "Anonymous access is forbidden for this "
                                      "operation.", 403, "0003-00000001"))
        if self.state.keys_file is not None:
            # STS keys: only those the file lists are current (an expired one is refused).
            # The signature itself is not checked: "OSS <AccessKeyId>:<signature>".
            key_id = self.headers["Authorization"].removeprefix("OSS ").split(":", 1)[0]
            if key_id not in json.loads(self.state.keys_file.read_text()) \
                    or not self.headers.get("x-oss-security-token"):
                return self._send(*_error("SecurityTokenExpired", "The security token you "
                                          "provided has expired.", 403, "0002-00000043"))
        with self.state.lock:
            objects = self.state.buckets.get(bucket)
            if objects is None:
                return self._send(*_error("NoSuchBucket", "The specified bucket does not exist.",
                                          404, "0015-00000101"))
            if not key:
                return self._bucket_call(bucket, objects, query, body)
            return self._object_call(objects, key, body, query)

    def _bucket_call(self, bucket, objects, query, body):
        if self.command == "GET" and "bucketInfo" in query:
            xml = (f"<BucketInfo><Bucket><CreationDate>2026-01-01T00:00:00.000Z</CreationDate>"
                   f"<ExtranetEndpoint>127.0.0.1</ExtranetEndpoint><IntranetEndpoint>127.0.0.1"
                   f"</IntranetEndpoint><Location>oss-cn-hangzhou</Location>"
                   f"<Name>{escape(bucket)}</Name><StorageClass>Standard</StorageClass>"
                   f"<Owner><DisplayName>test</DisplayName><ID>test</ID></Owner>"
                   f"<AccessControlList><Grant>private</Grant></AccessControlList>"
                   f"</Bucket></BucketInfo>")
            return self._send(200, xml.encode())
        if self.command == "GET":
            return self._list(bucket, objects, query)
        if self.command == "POST" and "delete" in query:
            keys = [node.text or "" for node in ElementTree.fromstring(body).iter("Key")]
            for name in keys:
                objects.pop(name, None)
            deleted = "".join(f"<Deleted><Key>{escape(k)}</Key></Deleted>" for k in keys)
            return self._send(200, f"<DeleteResult>{deleted}</DeleteResult>".encode())
        return self._send(*_error("MethodNotAllowed", "not in the stand-in", 405))

    def _list(self, bucket, objects, query):
        prefix = query.get("prefix", [""])[0]
        delimiter = query.get("delimiter", [""])[0]
        marker = query.get("marker", [""])[0]
        max_keys = int(query.get("max-keys", ["100"])[0] or 100)
        entries: list[tuple[str, bool]] = []   # (name, is a common prefix)
        seen_prefixes = set()
        for name in sorted(objects):
            if not name.startswith(prefix) or name <= marker:
                continue
            rest = name[len(prefix):]
            if delimiter and delimiter in rest:
                common = prefix + rest.split(delimiter, 1)[0] + delimiter
                if common not in seen_prefixes and common > marker:
                    seen_prefixes.add(common)
                    entries.append((common, True))
                continue
            entries.append((name, False))
        page, truncated = entries[:max_keys], len(entries) > max_keys
        self.state.pages.append((prefix, marker, truncated))
        contents = "".join(
            f"<Contents><Key>{escape(name)}</Key><LastModified>{_iso(objects[name][1])}"
            f"</LastModified><ETag>\"{objects[name][2]}\"</ETag><Type>Normal</Type>"
            f"<Size>{len(objects[name][0])}</Size><StorageClass>Standard</StorageClass>"
            f"</Contents>" for name, common in page if not common)
        prefixes = "".join(f"<CommonPrefixes><Prefix>{escape(name)}</Prefix></CommonPrefixes>"
                           for name, common in page if common)
        xml = (f"<ListBucketResult><Name>{escape(bucket)}</Name><Prefix>{escape(prefix)}</Prefix>"
               f"<Marker>{escape(marker)}</Marker><MaxKeys>{max_keys}</MaxKeys>"
               f"<Delimiter>{escape(delimiter)}</Delimiter>"
               f"<IsTruncated>{'true' if truncated else 'false'}</IsTruncated>"
               + (f"<NextMarker>{escape(page[-1][0])}</NextMarker>" if truncated else "")
               + contents + prefixes + "</ListBucketResult>")
        return self._send(200, xml.encode())

    def _object_call(self, objects, key, body, query):
        if self.command == "PUT":
            forbid = (self.headers.get("x-oss-forbid-overwrite") or "").lower()
            if forbid not in ("", "true", "false"):
                return self._send(*_error("InvalidArgument", "x-oss-forbid-overwrite must be "
                                          "true or false", 400, "0017-00000279"))
            if forbid == "true" and key in objects:
                return self._send(*_error(
                    "FileAlreadyExists", "The object you specified already exists and can not "
                    "be overwritten.", 409, "0026-00000002"))
            etag = hashlib.md5(body).hexdigest().upper()  # noqa: S324 (OSS's ETag of a PUT)
            objects[key] = (body, datetime.now(timezone.utc), etag)
            return self._send(200, headers={"ETag": f'"{etag}"'})
        if self.command == "POST" and "append" in query:
            # AppendObject (ossfs's open("wb") writes this way): at the object's length only.
            position = int(query.get("position", ["0"])[0] or 0)
            old = objects.get(key)
            if old is None and position != 0 or old is not None and position != len(old[0]):
                return self._send(*_error("PositionNotEqualToLength", "Position is not equal "
                                          "to file length", 409, "0026-00000016"))
            data = (old[0] if old else b"") + body
            etag = hashlib.md5(data).hexdigest().upper()  # noqa: S324
            objects[key] = (data, datetime.now(timezone.utc), etag)
            return self._send(200, headers={"ETag": f'"{etag}"',
                                            "x-oss-next-append-position": str(len(data))})
        if self.command == "DELETE":
            objects.pop(key, None)
            return self._send(204)
        if key not in objects:
            if self.command == "HEAD":
                return self._send(404)
            return self._send(*_error("NoSuchKey", "The specified key does not exist.", 404,
                                      "0026-00000001"))
        data, written, etag = objects[key]
        headers = {"ETag": f'"{etag}"', "Last-Modified": format_datetime(written, usegmt=True),
                   "Content-Type": "application/octet-stream", "x-oss-object-type": "Normal"}
        if self.command == "HEAD":
            self.send_response(200)
            for name, value in {**headers, "Content-Length": str(len(data))}.items():
                self.send_header(name, value)
            self.end_headers()
            return None
        return self._send(200, data, headers)

    do_GET = do_PUT = do_POST = do_DELETE = do_HEAD = _handle


class OssStandIn:
    """`with OssStandIn() as oss:` serves on a free loopback port; `oss.endpoint`, `oss.bucket()`."""

    def __init__(self):
        self.state = OssState()
        handler = type("Handler", (_Handler,), {"state": self.state})
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.endpoint = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def bucket(self, name: str) -> str:
        with self.state.lock:
            self.state.buckets.setdefault(name, {})
        return name

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.server.shutdown()
        self.server.server_close()
