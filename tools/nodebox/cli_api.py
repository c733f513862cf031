"""What the cloud APIs answer to the CLI calls a boot makes (aws, gcloud, az, aliyun), once the
world has checked the node's credentials. Only the calls the boot scripts make are known; any
other is refused by name (the box then fails on it, which is how an unknown call is found).

The bucket is the shared folder `bucket_dir` (the same folder `trainstack run --bucket-url
file://...` uses), and only the cluster's own bucket (or container) is accepted."""
from __future__ import annotations

import base64
import re
from pathlib import Path


def _out(stdout: str = "", rc: int = 0, stderr: str = "", write: dict | None = None) -> dict:
    return {"stdout": stdout, "stderr": stderr, "rc": rc, "write": write or {}}


def _opt(argv: list[str], name: str, default=None):
    for i, a in enumerate(argv):
        if a == name and i + 1 < len(argv):
            return argv[i + 1]
        if a.startswith(name + "="):
            return a.split("=", 1)[1]
    return default


def _bucket_copy(world, scheme: str, src: str, dst: str, files: dict, bucket: str) -> dict:
    """`cp local scheme://bucket/key` or the reverse, in the cluster's bucket only."""
    if src.startswith(scheme) == dst.startswith(scheme):
        return _out(rc=1, stderr=f"cp: exactly one of {src} {dst} must be a {scheme} URL\n")
    remote = src if src.startswith(scheme) else dst
    name, _, key = remote.removeprefix(scheme).partition("/")
    if name != bucket:
        return _out(rc=1, stderr=f"AccessDenied: {remote}: this node's identity may use only "
                                 f"the cluster bucket {bucket}\n")
    target = Path(world.bucket_dir) / key
    if remote == dst:
        if src not in files:
            return _out(rc=1, stderr=f"cp: {src}: No such file or directory\n")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(base64.b64decode(files[src]))
        return _out()
    if not target.is_file():
        return _out(rc=1, stderr=f"download failed: {remote}: An error occurred (404) when "
                                 "calling the HeadObject operation: Not Found\n")
    return _out(write={dst: base64.b64encode(target.read_bytes()).decode()})


def handle(world, body: dict) -> dict:
    argv = [str(a) for a in body.get("argv", [])]
    tool = body.get("tool")
    files = body.get("files", {})
    c = world.c
    group = c.get("group", {})
    instances = group.get("instances", [])
    positional = [a for a in argv if not a.startswith("-")]

    if tool == "aws":
        if argv[:2] == ["s3", "cp"]:
            src, dst = [a for a in argv[2:] if not a.startswith("--") and a != c.get("region")][:2]
            return _bucket_copy(world, "s3://", src, dst, files, c["bucket"])
        if argv[:2] == ["ecr", "get-login-password"]:
            token = f"ecr-{world.secret[:8]}-{len(world.registry_tokens)}"
            world.registry_tokens.add(token)
            return _out(token + "\n")
        if argv[:2] == ["autoscaling", "describe-auto-scaling-instances"]:
            ids = _opt(argv, "--instance-ids")
            if ids not in [i["id"] for i in instances]:
                return _out(rc=0, stdout="None\n")
            return _out(group["name"] + "\n")
        if argv[:2] == ["autoscaling", "describe-auto-scaling-groups"]:
            if _opt(argv, "--auto-scaling-group-names") != group["name"]:
                return _out("\n")
            return _out("\t".join(i["id"] for i in instances) + "\n")
        if argv[:2] == ["ec2", "describe-instances"]:
            start = argv.index("--instance-ids") + 1
            ids = []
            for a in argv[start:]:
                if a.startswith("--"):
                    break
                ids.append(a)
            ips = [i["ip"] for i in instances if i["id"] in ids]
            return _out("\t".join(ips) + "\n")
    if tool == "gcloud":
        if argv[:2] == ["storage", "cp"]:
            src, dst = [a for a in argv[2:] if not a.startswith("--")][:2]
            return _bucket_copy(world, "gs://", src, dst, files, c["bucket"])
        if argv[:4] == ["compute", "instance-groups", "managed", "list-instances"]:
            if argv[4] != group["name"]:
                return _out(rc=1, stderr=f"ERROR: (gcloud) instance group {argv[4]} not found\n")
            return _out("".join(i["name"] + "\n" for i in instances))
        if argv[:3] == ["compute", "instances", "list"]:
            wanted = re.findall(r"[a-z0-9-]+", (_opt(argv, "--filter") or "").split("(", 1)[-1])
            return _out("".join(i["ip"] + "\n" for i in instances if i["name"] in wanted))
    if tool == "az":
        if argv[:3] == ["vmss", "nic", "list"]:
            if _opt(argv, "--vmss-name") != group["name"]:
                return _out(rc=3, stderr="(ResourceNotFound) scale set not found\n")
            return _out("".join(i["ip"] + "\n" for i in instances))
        if argv[:3] == ["storage", "blob", "upload"]:
            if _opt(argv, "--auth-mode") != "login":
                # no account key on a node: only the identity's token (--auth-mode login)
                return _out(rc=1, stderr="There are no credentials provided in your command "
                                         "and environment, we will query for account key for "
                                         "your storage account. (the node may not list keys)\n")
            if _opt(argv, "--account-name") != c.get("storage_account"):
                return _out(rc=1, stderr="AuthorizationFailure: not this node's storage account\n")
            src = _opt(argv, "--file")
            dst = f"abfs://{_opt(argv, '--container-name')}/{_opt(argv, '--name')}"
            return _bucket_copy(world, "abfs://", src, dst, files, c["bucket"])
    if tool == "aliyun":
        rest = [a for a in argv if a not in ("--profile", c.get("cli_profile", ""))]
        if rest[:2] == ["oss", "cp"]:
            endpoint = _opt(rest, "--endpoint") or ""
            if endpoint.removeprefix("https://") not in (
                    f"oss-{c['region']}-internal.aliyuncs.com", f"oss-{c['region']}.aliyuncs.com"):
                # OSS answers a request sent to another region's endpoint with an error naming
                # the bucket's own endpoint
                return _out(rc=1, stderr=f"ErrorCode=AccessDenied: The bucket you are attempting "
                            f"to access must be addressed using the specified endpoint "
                            f"oss-{c['region']}.aliyuncs.com (got {endpoint or 'none'})\n")
            src, dst = [a for a in rest[2:] if not a.startswith("-")
                        and "aliyuncs.com" not in a][:2]
            return _bucket_copy(world, "oss://", src, dst, files, c["bucket"])
        if rest[:2] == ["nas", "DescribeProtocolMountTarget"]:
            if _opt(rest, "--FileSystemId") != c.get("filesystem_id"):
                return _out(rc=1, stderr="ERROR: SDK.ServerError ErrorCode: InvalidFileSystem."
                                         "NotFound Message: The specified file system does not "
                                         "exist.\n")
            return _out('{"ProtocolMountTargets": [{"ProtocolMountTargetDomain": "%s"}]}\n'
                        % c["cpfs_domain"])
    return _out(rc=2, stderr=f"the box's {tool} API knows no `{tool} {' '.join(argv[:4])}`: "
                             "add it to tools/nodebox/cli_api.py if a real node makes this call\n")
