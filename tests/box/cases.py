"""The box cases: each cloud's default node image and instance type, its user data exactly as
the plan carries it (decoded as the cloud decodes it), and the facts the cloud's world needs."""
from __future__ import annotations

import functools
import re

from tests.boot_helpers import LT, family_plan, user_data as aws_gcp_user_data
from tests.conftest import one
from tools.nodebox.box import BoxCase


def _node_env(text: str) -> dict[str, str]:
    import shlex
    import yaml
    files = {f["path"]: f["content"] for f in yaml.safe_load(text)["write_files"]}
    return {k: (shlex.split(v) or [""])[0] for k, _, v in
            (line.partition("=") for line in files["/etc/trainstack/node.env"].splitlines()
             if "=" in line and not line.startswith("#"))}


@functools.lru_cache(maxsize=None)
def aws_p5(user_data: str | None = None) -> BoxCase:
    plan = family_plan("p5")
    text = user_data or aws_gcp_user_data("p5")
    env = _node_env(text)
    objects = {r.inputs["key"]: r.inputs["content"]
               for r in plan.of_type("aws:s3/bucketObjectv2:BucketObjectv2")}
    role = [r.name for r in plan.of_type("aws:iam/role:Role") if r.name.endswith("-node-role")][0]
    image = re.search(r"docker pull --quiet '?([^ ;']+)", text).group(1)
    return BoxCase(
        name="aws-p5", cloud="aws", user_data=text, instance_type=env["TS_INSTANCE_TYPE"],
        nodes=int(env["TS_NODES"]), bucket=env["TS_BUCKET"], runtime_image=image,
        filesystem=(env["TS_FS_SOURCE"], "lustre"), bucket_objects=objects,
        extra={"instance_role": role, "group_name": f"{env['TS_CLUSTER']}-nodes",
               "region": env["TS_REGION"], "zone": env["TS_ZONE"]})


@functools.lru_cache(maxsize=None)
def gcp(family: str, user_data: str | None = None) -> BoxCase:
    text = user_data or aws_gcp_user_data(family)
    env = _node_env(text)
    image = re.search(r"docker pull --quiet '?([^ ;']+)", text).group(1)
    group = f"{env['TS_CLUSTER']}-nodes"
    project_number = "123456789012"

    def metadata_for(node):
        return {"instance": {
            "name": node.name, "hostname": f"{node.name}.c.{env['TS_PROJECT']}.internal",
            "zone": f"projects/{project_number}/zones/{env['TS_ZONE']}",
            "network-interfaces": [{"ip": node.ip}],
            "attributes": {"created-by": f"projects/{project_number}/zones/{env['TS_ZONE']}/"
                                         f"instanceGroupManagers/{group}"},
            "service-accounts": {"default": {"email": f"{env['TS_CLUSTER']}-nodes@"
                                             f"{env['TS_PROJECT']}.iam.gserviceaccount.com"}}},
            "project": {"project-id": env["TS_PROJECT"], "numeric-project-id": project_number}}

    return BoxCase(
        name=f"gcp-{family}", cloud="gcp", user_data=text, instance_type=env["TS_INSTANCE_TYPE"],
        nodes=int(env["TS_NODES"]), bucket=env["TS_BUCKET"], runtime_image=image,
        filesystem=(env["TS_FS_SOURCE"], "lustre"),
        extra={"group_name": group, "region": env["TS_REGION"], "zone": env["TS_ZONE"],
               "metadata_for": metadata_for})


@functools.lru_cache(maxsize=None)
def azure_ndv5(user_data: str | None = None) -> BoxCase:
    """ND H100 v5 from examples/cluster.yaml: the scale set's custom data, decoded as the Azure
    Linux agent (and cloud-init) decodes it; the user-assigned identity's client id and the
    storage account the boot logs in with, as the plan renders them."""
    from tests.azure.test_azure_boot import VMSS, family_plan as azure_plan
    from trainstack_components.azure.boot import decode_custom_data
    (vmss,) = azure_plan("ndv5-h100").of_type(VMSS)
    rendered = decode_custom_data(vmss.inputs["virtualMachineProfile"]["osProfile"]["customData"])
    text = user_data or rendered
    env = _node_env(text)
    image = re.search(r"docker pull --quiet '?([^ ;']+)", text).group(1)
    client_id = re.search(r"--client-id '([0-9a-f-]+)'", rendered).group(1)
    account = re.search(r"--account-name '([a-z0-9]+)'", rendered).group(1)
    group, resource_group = vmss.name, vmss.inputs["resourceGroupName"]

    def metadata_for(node):
        return {"instance": {
            "compute": {"name": node.name, "resourceGroupName": resource_group,
                        "vmScaleSetName": group, "vmSize": env["TS_INSTANCE_TYPE"],
                        "location": env["TS_REGION"], "zone": env["TS_ZONE"]},
            "network": {"interface": [{"ipv4": {"ipAddress": [
                {"privateIpAddress": node.ip, "publicIpAddress": ""}]}}]}}}

    return BoxCase(
        name="azure-ndv5", cloud="azure", user_data=text, instance_type=env["TS_INSTANCE_TYPE"],
        nodes=int(env["TS_NODES"]), bucket=env["TS_BUCKET"], runtime_image=image,
        filesystem=(env["TS_FS_SOURCE"], "lustre"),
        extra={"group_name": group, "region": env["TS_REGION"], "zone": env["TS_ZONE"],
               "identity_client_id": client_id, "storage_account": account,
               # what `az storage blob upload --auth-mode login` prints for an identity with
               # no Storage Blob Data role (here: the scale set's system-assigned identity)
               "denied_message": "You do not have the required permissions needed to perform "
                                 "this operation. Depending on your operation, you may need to "
                                 "be assigned one of the following roles: \"Storage Blob Data "
                                 "Owner\", \"Storage Blob Data Contributor\" "
                                 "(AuthorizationPermissionMismatch)",
               "metadata_for": metadata_for})


# Alibaba shapes -> the alicloud boot test's SHAPES key
ALICLOUD_SHAPES = {"ebmgn8v": "ebmgn8v", "sccgn7ex": "scc"}


@functools.lru_cache(maxsize=None)
def alicloud_plan(shape: str):
    """The plan of one Alibaba shape. ebmgn8v is planned in the CPFS region with the boot tests'
    STUB price rows (tests/alicloud_helpers.py): the shipped catalog prices no eRDMA shape in a
    CPFS region, so without them it cannot be planned at all (see the report of issue 31)."""
    import pytest
    from tests.alicloud.test_alicloud_boot import shape_plan
    from tests.alicloud_helpers import stub_cpfs_region_prices
    from trainstack_components import catalog
    catalog._prices_by_key.cache_clear()      # built from prices(): rebuilt with the stubs
    try:
        with pytest.MonkeyPatch.context() as mp:
            stub_cpfs_region_prices(mp)
            return shape_plan(ALICLOUD_SHAPES[shape])
    finally:
        catalog._prices_by_key.cache_clear()


@functools.lru_cache(maxsize=None)
def alicloud(shape: str, user_data: str | None = None, hardened: bool = False,
             role_after_s: float = 0) -> BoxCase:
    """One ecs.Instance per node: the user data exactly as the instance carries it (base64 /
    gzip, decoded as ECS's cloud-init does), at the plan's own private addresses (the ranks step
    lists them), with the RAM role, CPFS file system and bucket the plan names, and the bucket
    holding the plan's oss.BucketObjects (the agents' code the fetch step downloads). The RAM
    role reaches the metadata server `role_after_s` after boot starts (ecs.RamRoleAttachment
    runs once the instance is Running). The one edit:
    the eRDMA installer's published sha256 is replaced by the stand-in tarball's (the box cannot
    serve Alibaba's tarball); a tarball that does not match still fails the step (tested)."""
    from tests.alicloud.test_alicloud_boot import INSTANCE
    from tools.nodebox import clouds
    from trainstack_components.alicloud.boot import decode_ecs_user_data
    import hashlib
    plan = alicloud_plan(shape)
    outputs = plan.outputs
    rendered = decode_ecs_user_data(plan.of_type(INSTANCE)[0].inputs["userData"])
    text = user_data or rendered
    # only the plan's published pin is swapped (a planted other pin stays, and fails)
    published = re.search(r'echo "([0-9a-f]{64})  /tmp/erdma_installer.tar.gz"', rendered)
    if published:
        text = text.replace(published.group(1),
                            hashlib.sha256(clouds.erdma_installer()).hexdigest())
    env = _node_env(text)
    image = re.search(r"docker pull --quiet '?([^ ;']+)", text).group(1)
    names, ips = outputs["nodes"], outputs["node_private_ips"]
    objects = {r.inputs["key"]: r.inputs["content"]
               for r in plan.of_type("alicloud:oss/bucketObject:BucketObject")}
    domain = outputs.get("filesystem_dns") or "cpfs.box.invalid"

    def metadata_for(node):
        return {"hostname": node.name, "private-ipv4": node.ip, "instance-id": f"i-{node.name}",
                "region-id": env["TS_REGION"], "zone-id": env["TS_ZONE"],
                "instance": {"instance-type": env["TS_INSTANCE_TYPE"]}}

    return BoxCase(
        name=f"alicloud-{shape}", cloud="alicloud", user_data=text,
        instance_type=env["TS_INSTANCE_TYPE"], nodes=int(env["TS_NODES"]), bucket=env["TS_BUCKET"],
        runtime_image=image, bucket_objects=objects,
        # the export of the bucket fileset the nodes mount: <domain>:/share<its path>
        filesystem=(f"{domain}:/share/{outputs['filesystem_node_path'].strip('/')}", "cpfs-nfs"),
        extra={"node_names": names, "node_ips": ips, "ram_role": outputs["node_role"],
               "ram_role_after_s": role_after_s,
               "cli_profile": "trainstack", "region": env["TS_REGION"], "zone": env["TS_ZONE"],
               "filesystem_id": outputs.get("filesystem_id"), "cpfs_domain": domain,
               "metadata_hardened": hardened, "metadata_for": metadata_for})
