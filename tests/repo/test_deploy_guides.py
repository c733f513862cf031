"""One first-deploy guide per cloud, in the same shape, whose facts come from the code
(issue 36): a block or inline fact the code contradicts fails here."""
from __future__ import annotations

import re
import sys

import pytest

from tests.conftest import ROOT

sys.path.insert(0, str(ROOT / "tools"))
import deploy_docs  # noqa: E402

CLOUDS = ("aws", "gcp", "azure", "alicloud")
# The sections every guide has, in order: account set-up to what is left billing (issue 36)
SHAPE = ["Account set-up", "Credentials", "Quotas", "Stack config", "Bootstrap", "Up", "Connect",
         "Run and bench", "Destroy", "What is left billing"]


@pytest.mark.parametrize("cloud", CLOUDS)
def test_every_cloud_has_a_guide_in_the_same_shape(cloud):
    text = (ROOT / "docs" / "deploy" / f"{cloud}.md").read_text(encoding="utf-8")
    assert deploy_docs.sections(text) == SHAPE


@pytest.mark.parametrize("cloud", CLOUDS)
def test_the_generated_blocks_are_what_the_code_gives_now(cloud):
    text = (ROOT / "docs" / "deploy" / f"{cloud}.md").read_text(encoding="utf-8")
    names = [m["name"] for m in deploy_docs.BLOCK.finditer(text)]
    assert sorted(names) == sorted(f"{kind}:{cloud}" for kind in
                                   ("plan", "credentials", "config", "bootstrap", "kept"))
    assert deploy_docs.stale_blocks(text) == [], "run python tools/gen_docs.py"


def test_a_planted_false_fact_in_a_guide_is_caught():
    text = (ROOT / "docs" / "deploy" / "gcp.md").read_text(encoding="utf-8")
    planted = text.replace("9,000 GiB at 1000 MB/s/TiB", "36,000 GiB at 250 MB/s/TiB", 1)
    assert planted != text
    assert deploy_docs.stale_blocks(planted) == ["plan:gcp"]


def test_the_prose_facts_hold_and_a_planted_one_is_caught():
    gcp = (ROOT / "docs" / "gcp.md").read_text(encoding="utf-8")
    assert "fact:gcp-filesystem" in gcp and "fact:gcp-iap-range" in gcp
    for page in deploy_docs.FACT_PAGES:
        assert deploy_docs.wrong_facts(page.read_text(encoding="utf-8")) == [], page
    # the old page's claim (docs/gcp.md before issue 36): 36,000 GiB at 250 MB/s/TiB
    planted = gcp.replace("<!-- fact:gcp-filesystem -->9,000 GiB at 1000 MB/s/TiB",
                          "<!-- fact:gcp-filesystem -->36,000 GiB at 250 MB/s/TiB")
    assert [w.split(":")[0] for w in deploy_docs.wrong_facts(planted)] == ["gcp-filesystem"]


def test_the_gcp_page_no_longer_says_the_import_is_manual():
    gcp = " ".join((ROOT / "docs" / "gcp.md").read_text(encoding="utf-8").split())
    assert "import and export are not automatic" not in gcp
    assert "Lustre import is automatic" in gcp


@pytest.mark.parametrize("cloud", CLOUDS)
def test_the_credentials_block_names_what_the_deploy_check_accepts(cloud):
    from trainstack.deploy.lifecycle import CREDENTIALS
    text = (ROOT / "docs" / "deploy" / f"{cloud}.md").read_text(encoding="utf-8")
    for group in CREDENTIALS[cloud].env_any:
        for variable in group:
            assert f"`{variable}`" in text, variable


def test_azure_names_what_destroy_leaves_and_how_to_delete_it():
    text = (ROOT / "docs" / "deploy" / "azure.md").read_text(encoding="utf-8")
    tail = text[text.index("## What is left billing"):]
    assert "resource group `trainstack-llm-finetune-azure-data`" in tail
    assert "az group delete" in tail


def test_the_review_records_are_out_of_the_users_path():
    assert not list((ROOT / "docs").glob("review-*.md"))
    assert len(list((ROOT / "docs" / "reviews").glob("review-*.md"))) == 5


def test_the_readme_facts_hold_and_the_old_ones_are_caught():
    """Rank 0's address and where the bucket's data is on a node come from the alicloud plan
    (the README said 10.44.15.200 for any size and /lustre/bucket/ before issue 36), the trial's
    example prices from the trial's pricing."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "fact:alicloud-rank0" in readme and "fact:alicloud-data-dir" in readme
    assert deploy_docs.wrong_facts(readme) == []
    planted = readme.replace("<!-- fact:alicloud-rank0 -->10.44.15.251",
                             "<!-- fact:alicloud-rank0 -->10.44.15.200").replace(
        "<!-- fact:alicloud-data-dir -->/lustre/<", "<!-- fact:alicloud-data-dir -->/lustre/bucket/<")
    assert sorted(w.split(":")[0] for w in deploy_docs.wrong_facts(planted)) == \
        ["alicloud-data-dir", "alicloud-rank0"]
    # the trial's price of one node per cloud (trainstack trial's own pricing, three renders)
    assert "fact:trial-prices" in readme
    priced = readme.replace("9,000 GiB of file system) 72.59 USD", "9,000 GiB of file system) 72.60 USD")
    assert priced != readme
    assert [w.split(":")[0] for w in deploy_docs.wrong_facts(priced)] == ["trial-prices"]
    # the Alibaba walk-through's torchrun example works in that directory
    alibaba = readme[readme.index("### Alibaba Cloud"):readme.index("## The spec")]
    [cd] = [line.split()[1] for line in alibaba.splitlines() if line.startswith("cd /lustre")]
    assert cd == deploy_docs.FACTS["alicloud-data-dir"]() + "my-project"
    assert "10.44.15.200" not in alibaba


def test_the_bootstrap_section_lists_what_bootstrap_checks():
    """docs/deploy/gcp.md said `trainstack bootstrap gcp` had nothing to do, while it checks two
    APIs and the deployer's IAM (issue 36): each page's Bootstrap section now carries the
    example's account checks, generated from trainstack.deploy.account."""
    from trainstack.deploy import account
    gcp = (ROOT / "docs" / "deploy" / "gcp.md").read_text(encoding="utf-8")
    section = gcp[gcp.index("## Bootstrap"):gcp.index("## Up")]
    assert "nothing account-wide to do" not in section
    for api in account.GCP_APIS:
        assert f"gcloud services enable {api} --project" in section, api
    # the AWS page's quota request is the one bootstrap names: 2 x p5.48xlarge, 192 vCPUs each
    aws = (ROOT / "docs" / "deploy" / "aws.md").read_text(encoding="utf-8")
    section = aws[aws.index("## Bootstrap"):aws.index("## Up")]
    assert "--quota-code L-417A185B --desired-value 384" in section


def test_every_documented_config_set_command_is_the_one_up_prints():
    """A required stack key's `pulumi config set` line, wherever a page shows it, is the command
    `up` names when the key is missing (required_config). The README and docs/azure.md looked
    the Lustre provider up with `--query '[].id'`, which prints every match, one a line."""
    import re

    from trainstack.plan.required_config import required
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")),
             *sorted((ROOT / "docs" / "deploy").glob("*.md"))]
    seen = set()
    for cloud in CLOUDS:
        for key, value in required(cloud).items():
            for page in pages:
                text = " ".join(page.read_text(encoding="utf-8").replace("\\\n", " ").split())
                for m in re.finditer(r"pulumi config set(?: --stack [\w-]+)? " + re.escape(key)
                                     + " ", text):
                    seen.add((key, str(page.relative_to(ROOT))))
                    assert text[m.end():].startswith(value), (page.relative_to(ROOT), key)
    assert {("trainstack:azureLustreProviderObjectId", name) for name in
            ("README.md", "docs/azure.md", "docs/deploy/azure.md")} <= seen


def test_docs_alicloud_mounts_what_boot_mounts():
    """docs/alicloud.md's mount line named `<domain>:/share`, the export of `/`, after the
    nodes had moved to the export of the data flow's fileset (boot asks for `:/share<path>`)."""
    from trainstack_components.alicloud import boot
    from trainstack_components.alicloud.cluster import BUCKET_FILESET
    text = " ".join((ROOT / "docs" / "alicloud.md").read_text(encoding="utf-8").split())
    source = re.search(r'":(/share[^"]*)"', boot._pick_domain(BUCKET_FILESET))
    assert source and source[1].startswith("/share/"), "boot no longer prints this way"
    assert re.findall(r"noresvport <domain>:(\S+) /lustre`", text) == [source[1]]
    assert "`:/share` for an export of `/`" not in text


def test_the_quota_sections_count_the_example_vcpus():
    """p5.48xlarge: 192 vCPUs, two nodes 384; ND96isr H100 v5: 96 (the providers' size tables).
    The figures are inline facts read from the plan, so a planted figure is caught."""
    aws = (ROOT / "docs" / "deploy" / "aws.md").read_text(encoding="utf-8")
    azure = (ROOT / "docs" / "deploy" / "azure.md").read_text(encoding="utf-8")
    assert "fact:aws-node-vcpus -->192<" in aws and "fact:aws-cluster-vcpus -->384<" in aws
    assert "fact:azure-node-vcpus -->96<" in azure
    assert deploy_docs.wrong_facts(aws) == deploy_docs.wrong_facts(azure) == []
    planted = aws.replace("fact:aws-cluster-vcpus -->384<", "fact:aws-cluster-vcpus -->192<")
    assert [w.split(":")[0] for w in deploy_docs.wrong_facts(planted)] == ["aws-cluster-vcpus"]


def test_docs_gcp_lustre_sizes_and_apis_are_the_planners():
    """docs/gcp.md's Managed Lustre table is generated from LUSTRE_TIERS (it showed the bigger
    step above the threshold for 250 only, while 500 and 1000 have one too: 4,000,000 GiB at 500
    is 4,032,000, a 144,000 step, not 18,000), its API list is the plan's, and it no longer says
    Managed Lustre is unpriced (every tier has a cited us-central1 price)."""
    from trainstack_components import catalog
    from trainstack_components.gcp import budget_action
    from trainstack_components.gcp.planning import LUSTRE_TIERS, lustre_capacity_gib
    gcp = (ROOT / "docs" / "gcp.md").read_text(encoding="utf-8")
    assert [m["name"] for m in deploy_docs.BLOCK.finditer(gcp)] == ["lustre-tiers:gcp"]
    assert deploy_docs.stale_blocks(gcp) == []
    assert "| 500 | 18,000 GiB | 144,000 GiB steps above 3,060,000 GiB |" in gcp
    assert lustre_capacity_gib(4_000_000, 500) == 4_032_000       # 28 x 144,000
    planted = gcp.replace("| 500 | 18,000 GiB | 144,000 GiB steps above 3,060,000 GiB |",
                          "| 500 | 18,000 GiB |  |")
    assert deploy_docs.stale_blocks(planted) == ["lustre-tiers:gcp"]
    assert "fact:gcp-apis" in gcp and deploy_docs.wrong_facts(gcp) == []
    text = " ".join(gcp.split())
    stop = ", ".join(api.removesuffix(".googleapis.com") for api in budget_action.APIS[:-1])
    assert f"({stop} and {budget_action.APIS[-1].removesuffix('.googleapis.com')} for the budget" \
        in text
    assert "No cited Managed Lustre price" not in text
    for tier in LUSTRE_TIERS:
        assert [p for p in catalog.storage_prices() if p.item == f"managed_lustre_{tier}"
                and p.region == "us-central1"], tier


def test_docs_gcp_address_ranges_are_the_plans():
    """The host subnet and the Managed Lustre PSA range are inline facts read from the plan."""
    gcp = (ROOT / "docs" / "gcp.md").read_text(encoding="utf-8")
    assert "fact:gcp-host-cidr -->10.42.0.0/18<" in gcp and "fact:gcp-psa-range -->10.42.128.0/20<" in gcp
    planted = gcp.replace("fact:gcp-psa-range -->10.42.128.0/20<", "fact:gcp-psa-range -->10.42.128.0/24<")
    assert [w.split(":")[0] for w in deploy_docs.wrong_facts(planted)] == ["gcp-psa-range"]


def test_docs_azure_facts_are_the_plans():
    """docs/azure.md said the example built 21 resources (23 with the Lustre grants): the plan
    counts 23 as it is and 26 with trainstack:azureLustreProviderObjectId set. Those, the boot
    steps, the Lustre tiers, the image pin and the two limits are inline facts now."""
    azure = (ROOT / "docs" / "azure.md").read_text(encoding="utf-8")
    names = {m["name"] for m in deploy_docs.FACT.finditer(azure)}
    assert names == {"azure-resources", "azure-resources-grants", "azure-boot-steps",
                     "azure-lustre-tiers", "azure-lustre-sizes", "azure-image-version",
                     "azure-placement-limit", "azure-budget-notifications"}
    assert deploy_docs.wrong_facts(azure) == []
    assert "fact:azure-resources -->23<" in azure and "fact:azure-resources-grants -->26<" in azure
    planted = azure.replace("fact:azure-resources -->23<", "fact:azure-resources -->21<")
    assert [w.split(":")[0] for w in deploy_docs.wrong_facts(planted)] == ["azure-resources"]


def test_every_page_names_the_pulumi_cli_version_the_deploy_checks():
    """`up` refuses a Pulumi CLI older than MIN_PULUMI_VERSION; every user page that names the
    minimum names that one, and each deploy guide names it."""
    from trainstack.deploy.lifecycle import MIN_PULUMI_VERSION
    wanted = ".".join(MIN_PULUMI_VERSION.split(".")[:2])
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")),
             *sorted((ROOT / "docs" / "deploy").glob("*.md"))]
    for page in pages:
        text = " ".join(page.read_text(encoding="utf-8").split())
        said = re.findall(r"Pulumi CLI \((\d+\.\d+) or later\)", text)
        assert all(v == wanted for v in said), (page.name, said)
        if page.parent.name == "deploy":
            assert said, page.name
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "fact:gcp-iap-range" in readme and deploy_docs.wrong_facts(readme) == []


# What docs/billing-after-stop.md says keeps billing once the nodes are at 0, per cloud: each
# item the row names, with the resource of the example's plan that bills for it.
STILL_BILLING = {
    "aws": {"FSx for Lustre": "aws:fsx/lustreFileSystem:LustreFileSystem",
            "NAT gateway": "aws:ec2/natGateway:NatGateway", "Elastic IP": "aws:ec2/eip:Eip",
            "S3 bucket": "aws:s3/bucket:Bucket"},
    "gcp": {"Managed Lustre": "gcp:lustre/instance:Instance",
            "Cloud Storage bucket": "gcp:storage/bucket:Bucket",
            "Cloud Scheduler job(s)": "gcp:cloudscheduler/job:Job",
            "Cloud NAT": "gcp:compute/routerNat:RouterNat"},
    "azure": {"Azure Managed Lustre": "azure-native:storagecache:AmlFilesystem",
              "Azure Bastion Standard": "azure-native:network:BastionHost",
              "NAT gateway": "azure-native:network:NatGateway",
              "public IP": "azure-native:network:PublicIPAddress",
              "storage account": "azure-native:storage:StorageAccount"},
    "alicloud": {"CPFS": "alicloud:nas/fileSystem:FileSystem",
                 "NAT gateway": "alicloud:vpc/natGateway:NatGateway",
                 "EIP": "alicloud:ecs/eipAddress:EipAddress", "OSS bucket": "alicloud:oss/bucket:Bucket"},
}


@pytest.mark.parametrize("cloud", CLOUDS)
def test_what_keeps_billing_after_a_stop_is_in_the_plan(cloud):
    """Each item the billing table's row names for `cloud` is a resource the example's plan
    declares, and `trainstack status`'s line (billing.AFTER_STOP) names it too."""
    from trainstack.measure.billing import AFTER_STOP
    text = (ROOT / "docs" / "billing-after-stop.md").read_text(encoding="utf-8")
    label = {"aws": "AWS", "gcp": "Google Cloud", "azure": "Azure", "alicloud": "Alibaba Cloud"}
    [row] = [line for line in text.splitlines() if line.startswith(f"| {label[cloud]} |")]
    after_stop = row.split("|")[2]
    types = {r.type for r in deploy_docs._plan(cloud).resources}
    for item, token in STILL_BILLING[cloud].items():
        assert item in after_stop, item
        assert token in types, (item, token)
        assert item.lower().removesuffix("(s)") in AFTER_STOP[cloud].lower(), item


def test_docs_gcp_label_examples_are_what_the_planner_writes():
    """docs/gcp.md said every character outside [a-z0-9_-] becomes `_` and accents are dropped;
    the planner keeps international letters (GCP accepts them). Each example is run through it."""
    from trainstack_components.gcp.planning import LABEL_MAX_BYTES, LABEL_MAX_CHARS, label_key, \
        label_value
    text = " ".join((ROOT / "docs" / "gcp.md").read_text(encoding="utf-8").split())
    assert "Accents are dropped" not in text
    examples = re.findall(r"`([^`:]+): ([^`]+)` becomes `([^`:]+): ([^`]+)`", text)
    assert len(examples) == 4, examples
    for key, value, new_key, new_value in examples:
        assert (label_key(key), label_value(value)) == (new_key, new_value), key
    assert f"cut to {LABEL_MAX_CHARS} characters (and {LABEL_MAX_BYTES} bytes)" in text
