"""The world around one box, on the box's own loopback (run by the host's python inside the box's
network namespace): the cloud's metadata server, the cloud APIs its CLI calls, the bucket, the
package sites and apt repositories, the container registry and PyPI. Every part refuses what
the real one refuses:

- metadata: AWS IMDSv2 only (a GET without a session token is 401), GCP needs
  `Metadata-Flavor: Google`, Azure `Metadata: true` and, for a token, the user-assigned identity's
  client_id (the node has no system identity with a data role), Alibaba answers the RAM role's
  STS token;
- APIs and the bucket: only the credentials this metadata server issued to this node, only on
  this cluster's bucket and node group;
- apt: real apt against real signed repositories (tools/nodebox/repos.py), served as files;
- the registry: a private repository answers 401 without a login, an unknown digest 404;
- PyPI: a simple index with only the wheels the boot should get.

Started as `python -m tools.nodebox.world CONFIG.json`; writes `ready` into its state folder.
"""
from __future__ import annotations

import base64
import json
import secrets
import ssl
import sys
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path


class World:
    def __init__(self, config: dict):
        self.c = config
        self.cloud = config["cloud"]
        self.node = config["node"]                 # {"id", "name", "ip", ...}
        self.state = Path(config["state_dir"])
        self.bucket_dir = Path(config["bucket_dir"])
        self.sites = {h: Path(p) for h, p in config.get("sites", {}).items()}
        self.lock = threading.Lock()
        self.imds_tokens: set[str] = set()
        # The node's credentials, issued by this metadata server, accepted by the APIs.
        self.secret = config.get("credential") or secrets.token_hex(16)
        self.registry_tokens: set[str] = set()
        self.started = time.monotonic()
        # The box's clock runs fast (its `sleep` waits 0.05 s and writes down what it was asked
        # to wait): the box's time is the real time since its world started plus those waits.
        self.clock_file = Path(config["clock_file"]) if config.get("clock_file") else None

    def box_elapsed(self) -> float:
        """Seconds since boot started, on the box's clock."""
        slept = 0
        if self.clock_file is not None:
            try:
                slept = sum(int(n) for n in self.clock_file.read_text().split() if n.isdigit())
            except OSError:
                pass
        return time.monotonic() - self.started + slept

    def log(self, line: str) -> None:
        with self.lock, open(self.state / "world.log", "a") as f:
            f.write(line.rstrip() + "\n")

    # -- metadata ------------------------------------------------------------------------------
    def metadata(self, h: "Handler", method: str, path: str, query: dict) -> tuple[int, str]:
        if self.cloud == "aws":
            return self._aws_imds(h, method, path)
        if self.cloud == "gcp":
            if h.headers.get("Metadata-Flavor") != "Google":
                return 403, "Missing Metadata-Flavor:Google header."
            return self._lookup(self.c["metadata"], path.removeprefix("/computeMetadata/v1/"),
                                token=lambda: json.dumps({"access_token": f"gcp:{self.secret}",
                                                          "expires_in": 3599,
                                                          "token_type": "Bearer"}))
        if self.cloud == "azure":
            return self._azure_imds(h, method, path, query)
        if self.cloud == "alicloud":
            # ECS instance metadata (alibabacloud.com/help/en/ecs/user-guide/view-instance-
            # metadata): security hardening mode hands out a token for a PUT to /latest/api/token
            # with X-aliyun-ecs-metadata-token-ttl-seconds (1 to 21600) and reads it back from
            # X-aliyun-ecs-metadata-token; an instance created with HttpTokens=required
            # (ModifyInstanceMetadataOptions / RunInstances) answers nothing in normal mode.
            if method == "PUT" and path == "/latest/api/token":
                ttl = h.headers.get("X-aliyun-ecs-metadata-token-ttl-seconds", "")
                if not ttl.isdigit() or not 1 <= int(ttl) <= 21600:
                    return 400, "X-aliyun-ecs-metadata-token-ttl-seconds must be 1 to 21600"
                token = secrets.token_hex(16)
                self.imds_tokens.add(token)
                return 200, token
            given = h.headers.get("X-aliyun-ecs-metadata-token")
            if given is not None and given not in self.imds_tokens:
                return 401, "Unauthorized: invalid metadata token"
            if given is None and self.c.get("metadata_hardened"):
                return 403, "Forbidden: this instance accepts metadata requests in security " \
                            "hardening mode only (a token from PUT /latest/api/token)"
            sub = path.removeprefix("/latest/meta-data/")
            role = self.c.get("ram_role", "")
            # The role comes by its own resource (ecs.RamRoleAttachment) once the instance
            # runs: until then the instance has no role, and its metadata no such path.
            if (sub.startswith("ram/security-credentials/")
                    and self.box_elapsed() < self.c.get("ram_role_after_s", 0)):
                return 404, "Not Found"
            if sub == "ram/security-credentials/":
                return 200, role
            if sub == f"ram/security-credentials/{role}":
                return 200, json.dumps({"AccessKeyId": "STS.box", "AccessKeySecret": self.secret,
                                        "SecurityToken": f"alicloud:{self.secret}",
                                        "Expiration": "2099-01-01T00:00:00Z", "Code": "Success"})
            return self._lookup(self.c["metadata"], sub)
        return 404, "no metadata"

    def _azure_imds(self, h, method, path, query):
        """Azure IMDS as learn.microsoft.com/azure/virtual-machines/instance-metadata-service
        documents it: every request needs the `Metadata: true` header (else 400, "Required
        metadata header not specified") and an api-version (else 400, "api-version was not
        specified"); text answers only with format=text on a leaf. A token request without a
        client_id gets the system-assigned identity's token (the scale set has one, with no data
        role: the APIs refuse it); with the user-assigned identity's client_id, that identity's."""
        if h.headers.get("Metadata") != "true":
            return 400, json.dumps({"error": "Bad request. Required metadata header not specified"})
        if not query.get("api-version"):
            return 400, json.dumps({"error": "Bad request. api-version was not specified in the "
                                    "request. For more information refer to aka.ms/azureimds",
                                    "newest-versions": ["2023-07-01", "2021-12-13", "2021-02-01"]})
        if path.startswith("/metadata/identity/oauth2/token"):
            wanted = self.c["identity_client_id"]
            given = query.get("client_id") or query.get("msi_res_id")
            if not query.get("resource"):
                return 400, json.dumps({"error": "invalid_request",
                                        "error_description": "Required query variable 'resource' is missing"})
            if not given:
                return 200, json.dumps({"access_token": f"azure-system:{self.node['id']}",
                                        "expires_in": "3599", "token_type": "Bearer",
                                        "client_id": "system-assigned", "resource": query["resource"]})
            if given != wanted:
                return 400, json.dumps({"error": "invalid_request",
                                        "error_description": "Identity not found"})
            return 200, json.dumps({"access_token": f"azure:{wanted}:{self.secret}",
                                    "expires_in": "3599", "token_type": "Bearer",
                                    "client_id": wanted, "resource": query["resource"]})
        if path.rstrip("/") == "/metadata/scheduledevents":
            # Scheduled Events (learn.microsoft.com/azure/virtual-machines/linux/scheduled-events):
            # no event pending; a POST of StartRequests is acknowledged.
            return 200, json.dumps({"DocumentIncarnation": 0, "Events": []})
        value = self._value(self.c["metadata"], path.removeprefix("/metadata/"))
        if value is None:
            return 404, json.dumps({"error": "Not found"})
        if query.get("format") == "text":
            if isinstance(value, (dict, list)):
                return 400, json.dumps({"error": "Bad request. Query parameter format=text is "
                                        "only for leaf values"})
            return 200, str(value)
        return 200, json.dumps(value)

    def _aws_imds(self, h, method, path):
        if method == "PUT" and path == "/latest/api/token":
            if not h.headers.get("X-aws-ec2-metadata-token-ttl-seconds"):
                return 400, "missing X-aws-ec2-metadata-token-ttl-seconds"
            token = secrets.token_hex(16)
            self.imds_tokens.add(token)
            return 200, token
        # HttpTokens=required (the launch template): no session token, no answer.
        if h.headers.get("X-aws-ec2-metadata-token") not in self.imds_tokens:
            return 401, "Unauthorized"
        sub = path.removeprefix("/latest/meta-data/")
        role = self.c.get("instance_role", "")
        if sub == "iam/security-credentials/":
            return 200, role
        if sub == f"iam/security-credentials/{role}":
            return 200, json.dumps({"Code": "Success", "AccessKeyId": "ASIABOX",
                                    "SecretAccessKey": self.secret, "Token": f"aws:{self.secret}",
                                    "Expiration": "2099-01-01T00:00:00Z"})
        return self._lookup(self.c["metadata"], sub)

    def _value(self, tree, sub: str):
        node = tree
        for part in [p for p in sub.strip("/").split("/") if p]:
            if isinstance(node, dict) and part in node:
                node = node[part]
            elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
                node = node[int(part)]
            else:
                return None
        return node

    def _lookup(self, tree, sub, token=None):
        if token and sub.endswith("service-accounts/default/token"):
            return 200, token()
        value = self._value(tree, sub)
        if value is None:
            return 404, "Not Found"
        if isinstance(value, dict):
            return 200, "\n".join(f"{k}/" if isinstance(v, dict) else k for k, v in value.items())
        return 200, str(value)

    # -- the cloud APIs (what the CLI stand-ins send) ------------------------------------------
    def credentials_ok(self, given: str) -> bool:
        return given == f"{self.cloud}:{self.secret}" or given.endswith(f":{self.secret}")

    def api(self, h: "Handler", body: dict) -> tuple[int, dict]:
        given = body.get("credential", "")
        if not self.credentials_ok(given):
            self.log(f"api refused (credentials) {body.get('argv')}")
            return 403, {"stderr": self.c.get("denied_message", "AccessDenied: the request is "
                                               "not signed with this node's credentials") + "\n",
                         "rc": 255 if self.cloud == "aws" else 1}
        from tools.nodebox import cli_api
        self.log(f"api {body.get('argv')}")
        return 200, cli_api.handle(self, body)

    # -- the registry --------------------------------------------------------------------------
    def _artifact_registry_login(self, host: str, user: str, password: str) -> bool:
        """Artifact Registry (<location>-docker.pkg.dev) takes the node's service-account access
        token as the password of user `oauth2accesstoken` (cloud.google.com/artifact-registry/
        docs/docker/authentication#token); the metadata server here hands out that token."""
        return (self.cloud == "gcp" and host.endswith("-docker.pkg.dev")
                and user == "oauth2accesstoken" and password == f"gcp:{self.secret}")

    def registry(self, h: "Handler", host: str, path: str) -> tuple[int, str, dict]:
        repos = self.c.get("registry", {})
        if path in ("/v2/", "/v2"):
            auth = h.headers.get("Authorization", "")
            if auth.startswith("Basic "):
                user, _, password = base64.b64decode(auth[6:]).decode().partition(":")
                if password in self.registry_tokens or f"{host}" in self.c.get("open_logins", []) \
                        or self._artifact_registry_login(host, user, password):
                    return 200, "{}", {}
                return 401, json.dumps({"errors": [{"code": "DENIED",
                                                    "message": "Your authorization token is invalid."}]}), {}
            return 401, "{}", {"WWW-Authenticate": f'Basic realm="https://{host}/"'}
        # /v2/<name>/manifests/<reference>
        rest = path.removeprefix("/v2/")
        name, _, ref = rest.rpartition("/manifests/")
        repo = repos.get(f"{host}/{name}")
        if repo is None:
            return 404, json.dumps({"errors": [{"code": "NAME_UNKNOWN",
                                                "message": f"repository {host}/{name} not found"}]}), {}
        if repo.get("private"):
            auth = h.headers.get("Authorization", "")
            ok = False
            if auth.startswith("Basic "):
                user, _, password = base64.b64decode(auth[6:]).decode().partition(":")
                ok = password in self.registry_tokens \
                    or self._artifact_registry_login(host, user, password)
            if not ok and host.endswith("-docker.pkg.dev"):
                # Artifact Registry's own words for an anonymous pull of a repository that
                # does not grant it (as quoted in github.com/google/fuzzbench/issues/1981)
                project, _, rest = name.partition("/")
                return 401, json.dumps({"errors": [{"code": "DENIED", "message":
                    "Unauthenticated request. Unauthenticated requests do not have permission "
                    '"artifactregistry.repositories.downloadArtifacts" on resource '
                    f'"projects/{project}/locations/{host.removesuffix("-docker.pkg.dev")}/'
                    f'repositories/{rest.partition("/")[0]}" (or it may not exist)'}]}), {}
            if not ok:
                return 401, json.dumps({"errors": [{"code": "UNAUTHORIZED", "message":
                    "authentication required (no basic auth credentials)"}]}), {}
        digest = repo["refs"].get(ref)
        if digest is None:
            return 404, json.dumps({"errors": [{"code": "MANIFEST_UNKNOWN",
                                                "message": f"manifest unknown: {ref}"}]}), {}
        return 200, json.dumps({"digest": digest, "image": repo.get("image", "training")}), \
            {"Docker-Content-Digest": digest}


class Handler(BaseHTTPRequestHandler):
    world: World
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):
        self.world.log(f"{self.headers.get('Host', '')} {fmt % args}")

    def _send(self, code: int, body, headers=None, ctype="text/plain"):
        data = body if isinstance(body, bytes) else str(body).encode()
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)

    def _handle(self):
        w = self.world
        host = (self.headers.get("Host") or "").split(":")[0]
        parsed = urllib.parse.urlsplit(self.path)
        query = dict(urllib.parse.parse_qsl(parsed.query))
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        local = self.server.server_address[0]
        if local in ("169.254.169.254", "100.100.100.200") or host in (
                "metadata.google.internal", "169.254.169.254", "100.100.100.200"):
            code, text = w.metadata(self, self.command, parsed.path, query)
            return self._send(code, text)
        if parsed.path == "/box-api" and self.command == "POST":
            code, answer = w.api(self, json.loads(raw or b"{}"))
            return self._send(code, json.dumps(answer), ctype="application/json")
        if parsed.path.startswith("/v2") and host in w.c.get("registry_hosts", []):
            code, text, headers = w.registry(self, host, parsed.path)
            return self._send(code, text, headers, "application/json")
        site = w.sites.get(host)
        if site is not None:
            target = (site / urllib.parse.unquote(parsed.path).lstrip("/")).resolve()
            if target.is_dir():
                target = target / "index.html"
            if str(target).startswith(str(site.resolve())) and target.is_file():
                ctype = "text/html" if target.suffix == ".html" else "application/octet-stream"
                return self._send(200, target.read_bytes(), ctype=ctype)
            return self._send(404, f"404 Not Found: https://{host}{parsed.path}\n")
        return self._send(404, f"no such host in the box's world: {host}\n")

    do_GET = do_PUT = do_POST = do_HEAD = do_DELETE = _handle


class Server(ThreadingHTTPServer):
    daemon_threads = True

    def server_bind(self):
        # HTTPServer's own asks DNS for its fully qualified name: a box has no DNS to ask.
        import socketserver
        socketserver.TCPServer.server_bind(self)
        self.server_name, self.server_port = self.server_address[:2]


def serve(config_path: str) -> None:
    config = json.loads(Path(config_path).read_text())
    world = World(config)
    Handler.world = world
    servers = []
    for address in config.get("metadata_addresses", []):
        servers.append(Server((address, 80), Handler))
    servers.append(Server(("127.0.0.1", 80), Handler))   # http:// sites
    https = Server(("127.0.0.1", 443), Handler)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(config["tls_cert"], config["tls_key"])
    https.socket = context.wrap_socket(https.socket, server_side=True)
    servers.append(https)
    for server in servers:
        threading.Thread(target=server.serve_forever, daemon=True).start()
    (world.state / "ready").write_text("ready\n")
    while True:
        time.sleep(3600)


if __name__ == "__main__":
    serve(sys.argv[1])
