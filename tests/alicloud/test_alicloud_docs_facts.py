"""docs/alicloud.md states what the plan does (issue 31): node addresses, where CPFS sits, its
(absent) KMS key and the export's VPC, each read from the doc and checked against the plan."""
import yaml

from tests.conftest import EXAMPLE, ROOT, plan_for
from trainstack_components.alicloud import planning

DOC = " ".join((ROOT / "docs" / "alicloud.md").read_text().split())


def _plan():
    return plan_for(yaml.safe_load(EXAMPLE.read_text()), "alicloud")


def _by_name(plan, type_token, suffix):
    (found,) = [r for r in plan.of_type(type_token) if r.name.endswith(suffix)]
    return found


def test_the_node_addresses_in_the_doc_are_the_plans():
    plan = _plan()
    addresses = sorted(r.inputs["privateIp"] for r in plan.of_type("alicloud:ecs/instance:Instance"))
    assert addresses == ["10.44.15.251", "10.44.15.252"]       # the example's 2 nodes
    assert "`10.44.15.251` and `10.44.15.252` for the example's 2 nodes" in DOC
    n = len(addresses)
    assert [f"10.44.15.{253 - n + i}" for i in range(n)] == addresses   # the doc's formula


def test_cpfs_sits_in_its_own_vpc_without_a_kms_key_and_exports_into_the_nodes_vpc():
    plan = _plan()
    (nodes_vpc,) = [r for r in plan.of_type("alicloud:vpc/network:Network")
                    if r.name.endswith("-vpc") and not r.name.endswith("-fs-vpc")]
    fs_vpc = _by_name(plan, "alicloud:vpc/network:Network", "-fs-vpc")
    assert (nodes_vpc.inputs["cidrBlock"], fs_vpc.inputs["cidrBlock"]) == (
        planning.VPC_CIDR, planning.FS_VPC_CIDR) == ("10.44.0.0/16", "10.45.0.0/16")
    assert "the file system's own VPC (`10.45.0.0/16`" in DOC
    fs = plan.of_type("alicloud:nas/fileSystem:FileSystem")[0]
    assert fs_vpc.urn in fs.property_dependencies["vpcId"]
    assert "encryptType" not in fs.inputs and "kmsKeyId" not in fs.inputs
    assert "not encrypted with a KMS key" in DOC and "encrypted with a KMS key;" not in DOC
    export = plan.of_type("alicloud:nas/protocolMountTarget:ProtocolMountTarget")[0]
    assert nodes_vpc.urn in export.property_dependencies["vpcId"]
    assert "trainstack exports into the nodes' VPC (`10.44.0.0/16`)" in DOC
