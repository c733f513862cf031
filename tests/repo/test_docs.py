"""Docs that show the tool's output are checked against the tool (issue 25), so they cannot
drift: docs/cost.md's real run, the report picture's data, the README's claims about user data
and about policy exemptions, and docs/policies.md's examples of what the catalog does not price
and its list of what gcp_attached_gpus.csv prices (issue 36). Issue 36 also: the figures the
user pages restate from the code (capacity table, spec limits, policy table, estimate flags and
defaults, price table, planners' address plans, user-data limits, operations thresholds), each
read back from the constant, option or catalog row that decides it. Facts marked inline in a
page, and generated blocks, are tools/deploy_docs.py's (tests/repo/test_deploy_guides.py)."""
from __future__ import annotations

import base64
import gzip
import json
import re

import yaml
from typer.testing import CliRunner

from tests.conftest import EXAMPLE, ROOT, plan_for, write_spec
from tools import gen_docs
from trainstack.cli.app import app

README = " ".join((ROOT / "README.md").read_text(encoding="utf-8").split())


def test_cost_md_shows_what_compare_prints_for_the_example():
    documented = gen_docs.documented_block((ROOT / "docs" / "cost.md").read_text(encoding="utf-8"))
    assert documented == gen_docs.example_block(), (
        "docs/cost.md's example run is stale: run `python tools/gen_docs.py`")


def test_the_report_picture_was_taken_from_what_compare_gives_now():
    stored = (ROOT / "docs" / "report.json").read_text()
    assert stored == gen_docs._canonical(gen_docs.report_result()), (
        "docs/report.png shows an older compare result: run `python tools/gen_docs.py`")
    assert "docs/compare-example.yaml" in (ROOT / "docs" / "cost.md").read_text()


def test_the_generated_block_is_what_the_doc_says_it_is():
    block = gen_docs.example_block()
    assert block.startswith("trainstack compare: llm-finetune (lora, 13B params, 100M tokens")
    table = [line for line in block.splitlines() if line[:1] in "┏┃┡│└"]
    assert table and max(len(line) for line in table) <= gen_docs.DOC_WIDTH  # notes soft-wrap


def _user_data(plan, token: str, *path: str) -> str:
    [resource] = plan.of_type(token)[:1]
    value = resource.inputs
    for key in path:
        value = value[key]
    return value


def test_the_readme_says_how_each_cloud_carries_the_cloud_config():
    text = " ".join(README.split())
    assert ("as text on Google Cloud (`metadata.user-data`), gzip+base64 on AWS and Azure "
            "(`userData`, `customData`," in text)
    assert "base64 on Alibaba Cloud (`userData`, gzipped too only past ECS's 32 KB)" in text
    spec = yaml.safe_load(EXAMPLE.read_text())
    aws = _user_data(plan_for(spec, "aws"), "aws:ec2/launchTemplate:LaunchTemplate", "userData")
    ali = _user_data(plan_for(spec, "alicloud"), "alicloud:ecs/instance:Instance", "userData")
    assert gzip.decompress(base64.b64decode(aws)).startswith(b"#cloud-config")
    # the agents shipped through OSS, the rest fits ECS's 32 KB as it is
    assert base64.b64decode(ali).startswith(b"#cloud-config")
    gcp = _user_data(plan_for(spec, "gcp"), "gcp:compute/instanceTemplate:InstanceTemplate",
                     "metadata", "user-data")
    assert gcp.startswith("#cloud-config")
    azure = _user_data(plan_for(spec, "azure"), "azure-native:compute:VirtualMachineScaleSet",
                       "virtualMachineProfile", "osProfile", "customData")
    assert gzip.decompress(base64.b64decode(azure)).startswith(b"#cloud-config")


def test_the_policy_skip_advice_in_the_readme_works(tmp_path, example_spec):
    """The tag cannot come from cluster.yaml (as the README now says); skipResources can."""
    assert "it cannot come from `cluster.yaml`" in README
    runner = CliRunner()
    tagged = dict(example_spec, tags={**example_spec["tags"], "trainstack:policy-skip": "all"})
    refused = runner.invoke(app, ["check", "--spec", str(write_spec(tmp_path, tagged, "t.yaml")),
                                  "--cloud", "aws"])
    assert refused.exit_code == 2 and "reserved" in refused.output
    costly = dict(example_spec, nodes=8)   # 8 x p5 far over the 20,000 USD budget
    costly["workload"] = {**example_spec["workload"], "max_hours": None}
    spec = str(write_spec(tmp_path, costly))
    failed = runner.invoke(app, ["check", "--spec", spec, "--cloud", "aws", "--format", "json"])
    assert failed.exit_code == 1 and "spend-limit" in failed.stdout
    config = tmp_path / "policy.json"
    skip = {"spend-limit": {"skipResources": ["aws:autoscaling/group:Group::llm-finetune-nodes"]}}
    config.write_text(json.dumps(skip))
    skipped = runner.invoke(app, ["check", "--spec", spec, "--cloud", "aws", "--policy-config",
                                  str(config)])
    assert skipped.exit_code == 0, skipped.output
    assert ('{"spend-limit": {"skipResources": ["aws:autoscaling/group:Group::llm-finetune-nodes"]}}'
            in README)


# ------------------------------------------------ docs/policies.md: the catalog's own examples
# spend-limit's paragraph names examples of what the catalog does not price and lists what
# gcp_attached_gpus.csv prices; the pack decides both, so the docs are checked against it
# (issue 36): an example that becomes priced, or a list that misses rows, fails here.

POLICIES_MD = " ".join((ROOT / "docs" / "policies.md").read_text(encoding="utf-8").split())
ATTACHED_CSV = ROOT / "policies" / "catalog_data" / "gcp_attached_gpus.csv"


def _cloud(itype: str) -> str:
    """The cloud whose GPU family names `itype` (an N1 machine: GCP)."""
    from trainstack_policies.inventory.tokens import GPU_FAMILIES
    return "gcp" if itype.startswith("n1-") else \
        next(c for c, family in GPU_FAMILIES.items() if family.match(itype))


def _node(itype: str, region: str, accelerators: tuple = ()):
    """One GPU node of `itype` in `region`, on the cloud whose GPU family names it."""
    from tests.policy_fixtures import res
    cloud = _cloud(itype)
    if cloud == "aws":
        return res("aws:ec2/instance:Instance", "node", {"instanceType": itype},
                   provider_region=region)
    if cloud == "azure":
        return res("azure-native:compute:VirtualMachineScaleSet", "node", {
            "location": region, "sku": {"name": itype, "capacity": 1.0}})
    return res("gcp:compute/instance:Instance", "node", {
        "machineType": itype, "zone": f"{region}-a",
        "guestAccelerators": [{"type": t, "count": 1.0} for t in accelerators]})


def _unpriced(node) -> list[str]:
    """spend-limit's "cannot be estimated" violations for a stack of `node` alone."""
    from trainstack_policies.runner import evaluate
    [spend] = [v for v in evaluate([node]) if v.policy == "spend-limit"]
    return [v.message for v in spend.violations if "cannot be estimated" in v.message]


def test_the_unpriceable_examples_in_policies_md_are_unpriced():
    import re
    found = re.search(r"a type outside the catalog such as ([\w.-]+)(?: \([^)]*\))?, a catalog "
                      r"type in a region without a price such as ([\w.-]+) in ([\w-]+),",
                      POLICIES_MD)
    listed = re.search(r"`catalog_data/unpriced_regions.csv`, e\.g\. ([\w.-]+) in ([\w-]+),",
                       POLICIES_MD)
    assert found and listed, "spend-limit's unpriceable examples are no longer where this looks"
    from trainstack_policies import catalog
    outside, priced_elsewhere, region = found.groups()
    # The type outside the catalog: no row, no price in any region, not on the list of types
    # sold without a public price, and the pack fails it closed in its cloud's main region.
    cloud = _cloud(outside)
    assert catalog.dearest(cloud, outside) is None and catalog.unpriced(cloud, outside) is None
    assert catalog.instance_type(cloud, outside) is None, outside
    main = {"aws": "us-east-1", "azure": "eastus", "gcp": "us-central1"}[cloud]
    assert [m for m in _unpriced(_node(outside, main)) if outside in m]
    # The region examples: the violation says which kind each is (docs: "not offered there per
    # the catalog's sources", or "listed by the provider as sold there with no public price").
    for itype, where, says in ((priced_elsewhere, region, "not offered in"),
                               (*listed.groups(), "listed as sold")):
        assert [m for m in _unpriced(_node(itype, where))
                if itype in m and where in m and says in m], itype
        # ... while the catalog prices it in another region: a region example, not a type one.
        assert catalog.dearest(_cloud(itype), itype) is not None, itype


def test_policies_md_lists_what_gcp_attached_gpus_csv_prices():
    import csv
    import re
    with ATTACHED_CSV.open(encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    start = POLICIES_MD.index("(`gcp_attached_gpus.csv`: ")
    listed = POLICIES_MD[start:POLICIES_MD.index("); another", start)]
    machines = {f"{series}-{size}"
                for series, sizes in re.findall(r"(n1-[a-z]+)-(\d+(?:(?:, | and )\d+)*)", listed)
                for size in re.findall(r"\d+", sizes)}
    regions = set(re.findall(r"\b(?:us|europe|asia)-[a-z]+\d\b", listed))
    assert machines == {r["name"] for r in rows if r["kind"] == "machine"}
    assert set(re.findall(r"nvidia-[a-z0-9-]+", listed)) == \
        {r["name"] for r in rows if r["kind"] == "accelerator"}
    # Every machine is priced in each region the docs name, and only there.
    for machine in machines:
        assert {r["region"] for r in rows if r["name"] == machine} == regions, machine
    # The pack prices a listed machine with a listed GPU, and fails closed on the docs' examples.
    assert _unpriced(_node("n1-highmem-16", "us-central1", ("nvidia-tesla-v100",))) == []
    other = re.search(r"another N1 machine \(([\w-]+), say\)", POLICIES_MD)
    gpu = re.search(r"does not price it in \(([\w-]+) in ([\w-]+), say\)", POLICIES_MD)
    assert other and gpu, "the attached-GPU examples are no longer where this looks"
    assert other.group(1) not in machines
    assert [m for m in _unpriced(_node(other.group(1), "us-central1", ("nvidia-tesla-t4",)))
            if other.group(1) in m]
    assert [m for m in _unpriced(_node("n1-standard-8", gpu.group(2), (gpu.group(1),)))
            if gpu.group(1) in m and gpu.group(2) in m]


# ------------------------------------------------ docs/capacity.md: what each type is sold as
# The table and the README's Capacity Block list restate components/catalog/capacity.csv, which
# the planner enforces (exit 2 for a type not sold so): a row the data changes fails here.

_CAPACITY_COLUMNS = {"aws": ("on_demand", "spot", "reservation", "capacity_block"),
                     "gcp": ("on_demand", "spot", "reservation", "flex_start")}


def test_the_capacity_table_is_what_the_planner_sells():
    from trainstack_components import catalog
    from trainstack_components.base import get_cloud
    text = (ROOT / "docs" / "capacity.md").read_text(encoding="utf-8")
    table = text[text.index("## Which GPU types need which capacity"):text.index("\"yes\" means")]
    rows = [[c.strip() for c in line.strip("|").split("|")] for line in table.splitlines()
            if line.startswith("| ") and not line.startswith("| GPU")]
    assert len(rows) == 6, rows
    checked = 0
    for gpu, aws_type, aws_sold, gcp_types, gcp_sold in rows:
        for cloud, names, sold in (("aws", aws_type, aws_sold), ("gcp", gcp_types, gcp_sold)):
            if names == "—":
                continue
            said = [cell.strip("* ") == "yes" for cell in sold.split("/")]
            for name in names.split(", "):
                itype = catalog.instance_type(cloud, name)
                assert itype is not None, name
                assert itype.gpu == gpu.replace(" GB", "GB").replace(" ", "-"), (name, gpu)
                offered = get_cloud(cloud).capacity_offered(itype)
                assert said == [t in offered for t in _CAPACITY_COLUMNS[cloud]], (name, sold)
                checked += 1
    assert checked == 12   # 6 AWS types, 6 GCP types (a3-highgpu-8g and a3-megagpu-8g share a row)


def test_the_readme_names_the_capacity_block_types():
    from trainstack_components import catalog
    found = re.search(r"Capacity Blocks for ML \(([\w., -]+)\)", README)
    assert found, "the README's capacity_block row is no longer where this looks"
    named = {f"{t}.48xlarge" if not t.startswith("p4") else f"{t}.24xlarge"
             for t in found.group(1).split(", ")}
    blocks = {f.instance_type for f in catalog.capacity_facts()
              if f.cloud == "aws" and "capacity_block" in f.types}
    assert named == blocks


def test_the_readme_gpu_field_names_the_models_the_catalog_knows():
    """The `gpu` row lists the models a workload is sized on (gpu_models.csv) and says any other
    catalog GPU plans without one; the README listed only the first, as if they were all."""
    from trainstack_components import catalog
    from trainstack_components.catalog.gpu_models import load_gpu_models
    row = README[README.index("| `gpu` |"):README.index("| `nodes` |")]
    sized = row[:row.index("(the models a `workload` is sized on)")]
    assert set(re.findall(r"`([^`]+)`", sized)[1:]) == set(load_gpu_models())
    others = re.search(r"any other GPU of `instance_types.csv` \(([^)]*)\)", row)
    assert others, "the row no longer says other catalog GPUs plan"
    named = re.findall(r"`([^`]+)`", others.group(1).split(":")[0])
    gpus = {t.gpu for t in catalog.instance_types() if t.auto_choice}
    assert named and set(named) <= gpus - set(load_gpu_models())


# ------------------------------------------------ README: the spec's limits, as the code has them
# Ranges and limits the README states in the spec block, the field table and the capacity table:
# each read back from the model or constant that enforces it (a new limit fails here).

def _field_bounds(model, name: str) -> tuple:
    meta = model.model_fields[name].metadata
    lo = next(getattr(m, "ge", None) for m in meta if getattr(m, "ge", None) is not None)
    hi = next(getattr(m, "le", None) for m in meta if getattr(m, "le", None) is not None)
    return lo, hi


def test_the_readme_states_the_spec_limits_the_code_enforces():
    from typing import get_args

    from trainstack_components.alicloud.planning import LOW_LATENCY_MAX_NODES
    from trainstack_components.gcp.planning import FLEX_MAX_HOURS
    from trainstack_components.spec import MIN_LIFETIME_HOURS, ClusterSpec, WorkloadSpec
    from trainstack_components.tags import AWS_MAX_TAGS
    raw = (ROOT / "README.md").read_text(encoding="utf-8")
    spec_block = raw[raw.index("```yaml\nname: "):]
    spec_block = spec_block[:spec_block.index("```", 8)]
    lo, hi = _field_bounds(ClusterSpec, "nodes")
    assert f"nodes: 2                      # {lo}..{hi}\n" in spec_block
    pattern = ClusterSpec.model_fields["name"].metadata[0].pattern   # ^[a-z][a-z0-9-]{1,28}[a-z0-9]$
    inner = re.search(r"\{(\d+),(\d+)\}", pattern)
    assert f"# lowercase, {int(inner[1]) + 2}-{int(inner[2]) + 2} chars;" in spec_block
    choices = get_args(ClusterSpec.model_fields["interconnect"].annotation)
    assert "# " + " | ".join(f"{c} (hard requirement)" if c == "rdma" else c
                             for c in choices) + "\n" in spec_block
    assert f"at least {MIN_LIFETIME_HOURS:g} (it counts from the start" in README
    methods = get_args(WorkloadSpec.model_fields["method"].annotation)
    assert "method (" + ", ".join(f"`{m}`" for m in methods) + ";" in README
    assert f"AWS: at most {AWS_MAX_TAGS} per resource" in README
    assert f"needs `max_hours` (at most {FLEX_MAX_HOURS})" in README
    assert f"LowLatency deployment set (at most {LOW_LATENCY_MAX_NODES} nodes)" in README


def test_the_readme_policy_table_is_the_pack():
    """Every rule of the pack, its default enforcement level and severity, in the README's table
    (and nothing else); required-tags' default tags as the rule has them."""
    from trainstack_policies.rules import RULES
    from trainstack_policies.rules.required_tags import DEFAULT_TAGS
    raw = (ROOT / "README.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| `([a-z-]+)` \| (\w+) \((\w+)\) \|", raw, re.M)
    assert rows == [(r.name, r.enforcement_level, r.severity) for r in RULES]
    assert "`requiredTags` (default " + ", ".join(DEFAULT_TAGS) + ")" in raw


# ------------------------------------------------ docs/cost.md: estimate's flags and defaults

def test_cost_md_lists_every_estimate_flag_with_the_code_default():
    """Each flag of `trainstack estimate` is in docs/cost.md's table (or, for --spec/--cloud, its
    prose), each flag the table names exists, and the defaults it states are the code's
    (the table lacked --attention and --gpus-per-node)."""
    import inspect

    from trainstack.cost import sizing_cost
    from trainstack.cost.estimate import estimate_command
    from trainstack_components import memory
    text = (ROOT / "docs" / "cost.md").read_text(encoding="utf-8")
    table = text[text.index("| flag | meaning | default |"):text.index("`--json` prints at least")]
    rows = {}
    for line in [row for row in table.splitlines()[2:] if row.startswith("|")]:
        flag, _, default = [c.strip() for c in line.strip("|").split("|")]
        for name in re.findall(r"--[a-z-]+", flag):
            rows[name] = default
    options = set()
    for p in inspect.signature(estimate_command).parameters.values():
        for decl in p.default.param_decls:
            options.update(decl.split("/"))
    assert set(rows) <= options, set(rows) - options
    assert options - set(rows) == {"--spec", "--cloud"}
    assert "`--spec FILE`" in text and "With\n`--cloud`" in text
    w = memory.Workload(params=1e9)
    assert rows["--precision"] == f"`{w.precision}`" and rows["--zero-stage"] == str(w.zero_stage)
    assert rows["--seq-len"] == f"{w.seq_len}, {w.micro_batch}"
    assert rows["--lora-rank"] == str(memory.DEFAULT_LORA_RANK)
    assert rows["--attention"] == f"spec, else `{memory.DEFAULT_ATTENTION}`"
    assert rows["--mfu"] == f"spec, else {memory.DEFAULT_MFU:g}"
    assert rows["--headroom"] == f"{memory.DEFAULT_HEADROOM:.2f}"
    assert rows["--idle-overhead"] == (f"{sizing_cost.DEFAULT_IDLE_OVERHEAD:.2f}, off, "
                                       f"{sizing_cost.DEFAULT_PREEMPTION_OVERHEAD:.2f}")
    defaults = {p.default.param_decls[0]: p.default.default
                for p in inspect.signature(estimate_command).parameters.values()}
    assert rows["--gpus-per-node"].startswith(f"{defaults['--gpus-per-node']} ")
    assert defaults["--headroom"] == memory.DEFAULT_HEADROOM
    assert (defaults["--idle-overhead"], defaults["--preemption-overhead"]) == (
        sizing_cost.DEFAULT_IDLE_OVERHEAD, sizing_cost.DEFAULT_PREEMPTION_OVERHEAD)


def test_cost_md_price_table_is_the_catalog():
    """docs/cost.md's storage and network prices restate the catalog's CSV rows that compare and
    the pack price with; a changed row (a new snapshot) fails here until the page says it."""
    from trainstack_components import catalog
    from trainstack_components.catalog.gpu_models import cny_per_usd
    text = (ROOT / "docs" / "cost.md").read_text(encoding="utf-8")
    table = text[text.index("| cloud | item | price | source (date) |"):
                 text.index("**Spot**: where")]
    cells = {}
    for line in [row for row in table.splitlines()[2:] if row.startswith("|")]:
        cloud, item, price, _ = [c.strip() for c in line.strip("|").split("|")]
        cells[(cloud, item)] = price
    rows = catalog.storage_prices()

    def price(cloud, item, region=None):
        [p] = [r.price for r in rows if r.cloud == cloud and r.item == item
               and region in (None, r.region)]
        return p

    def figures(cell):
        return [float(x) for x in re.findall(r"\d+\.\d+|\d+", cell.split(" USD")[0])]

    fsx = cells[("AWS", "FSx for Lustre PERSISTENT_2 SSD, 125 / 250 / 500 / 1000 MB/s/TiB")]
    assert figures(fsx) == [price("aws", f"fsx_lustre_persistent2_{t}")
                            for t in (125, 250, 500, 1000)]
    assert figures(cells[("AWS", "S3 Standard, first 50 TB")]) == \
        [price("aws", "s3_standard_first_50tb")]
    assert figures(cells[("AWS", "internet egress, first 10 TB")]) == \
        [price("aws", "egress_internet_first_10tb")]
    lustre = cells[("GCP", "Managed Lustre 125 / 250 / 500 / 1000 MB/s/TiB, us-central1")]
    assert figures(lustre) == [price("gcp", f"managed_lustre_{t}", "us-central1")
                               for t in (125, 250, 500, 1000)]
    gcs = [r.price for r in rows if r.item == "gcs_standard_regional"]
    assert figures(cells[("GCP", "GCS Standard regional")]) == [min(gcs), max(gcs)]
    assert figures(cells[("GCP", "internet egress, Premium 0-1 TiB")]) == \
        [price("gcp", "egress_internet_premium_0_1tib", "us-central1")]
    assert figures(cells[("GCP", "Parallelstore")])[0] == \
        round(price("gcp", "parallelstore_capacity") * 730, 2)
    assert figures(cells[("Alibaba", "OSS Standard LRS")]) == [price("alibaba", "oss_standard_lrs")]
    assert figures(cells[("Alibaba", "internet egress, mainland China")]) == \
        [price("alibaba", "egress_internet_pay_by_data_transfer_cn")]
    assert figures(cells[("all", "CNY per USD")]) == [cny_per_usd()]
    assert f"({cny_per_usd()} CNY per USD:" in text


def test_first_deploy_md_alibaba_erdma_note_holds():
    """docs/first-deploy.md: no Alibaba account check, and the eRDMA types are priced only
    outside the CPFS regions. A price row in a CPFS region (or an account check) makes the
    note false, and this fails until it is rewritten."""
    from trainstack.deploy import account
    from trainstack_components import catalog
    from trainstack_components.alicloud.planning import CPFS_REGIONS
    text = " ".join((ROOT / "docs" / "first-deploy.md").read_text(encoding="utf-8").split())
    assert ("The shipped catalog prices the eRDMA types (ebmgn8v, gn8v) only outside the CPFS "
            "regions" in text and "no account-level check is wired yet" in text)
    erdma = {t.name for t in catalog.instance_types() if t.cloud == "alibaba"
             and t.fabric == "erdma" and t.name.split(".")[1].split("-")[0] in ("ebmgn8v", "gn8v")}
    regions = {p.region for p in catalog.prices() if p.instance_type in erdma}
    assert erdma and regions and not regions & set(CPFS_REGIONS)
    assert account.needs("alicloud") == []


def test_the_cloud_pages_state_the_planners_constants():
    """docs/alicloud.md and docs/azure.md restate sizes and address plans the planners fix:
    each sentence is rebuilt here from the constant it restates."""
    from trainstack_components.alicloud import planning as ali
    from trainstack_components.azure import planning as az
    alicloud = " ".join((ROOT / "docs" / "alicloud.md").read_text(encoding="utf-8").split())
    azure = " ".join((ROOT / "docs" / "azure.md").read_text(encoding="utf-8").split())
    assert (f"the nodes' VPC (`{ali.VPC_CIDR}`) with one vSwitch (`{ali.NODE_CIDR}`) in the zone, "
            f"and the file system's own VPC (`{ali.FS_VPC_CIDR}`, vSwitch `{ali.FS_CIDR}`,") in alicloud
    assert (f"most **{ali.LOW_LATENCY_MAX_NODES}** instances: {ali.LOW_LATENCY_MAX_NODES + 1} "
            "nodes is refused") in alicloud
    assert f"capacity rounded up to a {ali.CPFS_STEP_GIB:,} GiB step" in alicloud
    flows = [f"{t:,}" for t in ali.DATAFLOW_THROUGHPUTS]
    assert f"({', '.join(flows[:-1])} or {flows[-1]} MB/s, the smallest tier" in alicloud
    assert f"VNet `{az.VNET_CIDR}`, clear of `{az.IB_RESERVED}`" in azure
    assert f"node subnet `{az.NODE_SUBNET}`" in azure
    assert f"filesystem subnet from `{az.FS_SUBNET_BASE}`" in azure
    sizes = ", ".join(f"/{prefix} up to {tib}" for tib, prefix in az.FS_SUBNET_PREFIX)
    assert sizes.replace(", /", " TiB, /", 1) + " TiB (amlfs-prerequisites)" in azure
    assert f"`AzureBastionSubnet` `{az.BASTION_SUBNET}`" in azure


def test_the_readme_says_what_bootstrap_needs_on_each_cloud():
    """The README's "Which commands need what" listed `trainstack bootstrap aws` only, while
    bootstrap checks the account on every cloud through the cloud's CLI (trainstack.deploy)."""
    from trainstack.deploy import account, bootstrap
    [row] = [line for line in README.split("| `trainstack ")
             if line.startswith("bootstrap <cloud>` |")]
    for cloud, cli in account.CLI.items():
        # AWS's check is the P-instance quota of a cluster: any GPU node asks for one
        if account.needs(cloud, region="r", instance_type="p5.48xlarge", vcpus=192):
            assert f"`{cli}`" in row, cli
        else:
            assert "Alibaba Cloud has nothing to check" in row and cloud == "alicloud"
    assert sorted(bootstrap._PROGRAMS) == ["aws"] and "on AWS also the Pulumi CLI" in row
    assert "`--skip-account-check`" in row


def test_the_pages_state_the_user_data_limits_the_boot_enforces():
    """The user-data limits the pages give are those the boot renderers refuse above."""
    from trainstack_components.alicloud.boot import USER_DATA_LIMIT
    from trainstack_components.azure.boot import CUSTOM_DATA_LIMIT
    from trainstack_components.boot.render import AWS_USER_DATA_LIMIT
    assert (f"EC2 allows {AWS_USER_DATA_LIMIT // 1024} KiB of user data and ECS "
            f"{USER_DATA_LIMIT // 1024} KB" in README)
    assert f"too only past ECS's {USER_DATA_LIMIT // 1024} KB)" in README
    alicloud = " ".join((ROOT / "docs" / "alicloud.md").read_text(encoding="utf-8").split())
    assert f"over ECS's {USER_DATA_LIMIT // 1024} KB limit" in alicloud
    azure = " ".join((ROOT / "docs" / "azure.md").read_text(encoding="utf-8").split())
    assert f"above Azure's {round(CUSTOM_DATA_LIMIT / 1024)} KB limit" in azure


def test_the_readme_operations_figures_are_the_codes():
    """Thresholds and defaults the README's operations sections state (idle, reaper lease, run,
    bench, trial), each read from the constant or option that decides it."""
    import inspect

    from trainstack.cost.measured import SCALING_TOLERANCE
    from trainstack.measure import run
    from trainstack.measure.bench_parse import FLOOR_EFFICIENCY
    from trainstack.reap.store import LEASE
    from trainstack.trial.command import trial_command
    from trainstack.trial.plan import TrialHours
    from trainstack_components.agents import idle_agent
    util = inspect.signature(idle_agent.heartbeat).parameters["util_threshold"].default
    assert f"a GPU is at least {util:g} % utilised" in README
    assert f"more than {idle_agent.MAX_GAP_S // 60} min (or back)" in README
    assert f"under a {LEASE.total_seconds() / 3600:g} h lease" in README
    assert f"passes `--max-restarts {run.SPOT_MAX_RESTARTS}` unless told otherwise" in README
    assert f"({run.DEFAULT_STALE_S:g} s, `TRAINSTACK_NODE_STALE_S`)" in README
    assert f"nodes {FLOOR_EFFICIENCY:g} x the bus-bandwidth ceiling" in README
    assert f"(above {1 + SCALING_TOLERANCE:g} the training part runs again" in README
    h = TrialHours()
    assert (f"(boot {h.boot:g} h + data staging {h.staging:g} h + bench {h.bench:g} h + "
            f"teardown {h.teardown:g} h;") in README
    options = {p.default.param_decls[0]: p.default.default
               for p in inspect.signature(trial_command).parameters.values()
               if hasattr(p.default, "param_decls") and p.default.param_decls}
    assert f"(`--max-moves`, default {options['--max-moves']};" in README
    assert f"reached `--min-scaling` ({options['--min-scaling']:g})" in README


def test_the_pages_state_the_sizing_and_stop_defaults():
    """The default MFU, headroom and scaling efficiencies (README, docs/cost.md) and the budget
    stop's thresholds (README, docs/billing-after-stop.md) as the code has them, on both clouds
    that stop (AWS's Lambda, GCP's Cloud Function)."""
    from fractions import Fraction

    from trainstack.cost.sizing_time import SCALING_EFFICIENCY
    from trainstack_components import memory
    from trainstack_components.aws import budget_action as aws_stop
    from trainstack_components.gcp import budget_action as gcp_stop
    cost = " ".join((ROOT / "docs" / "cost.md").read_text(encoding="utf-8").split())
    billing = " ".join((ROOT / "docs" / "billing-after-stop.md").read_text(encoding="utf-8").split())
    tcp = Fraction(SCALING_EFFICIENCY["tcp"]).limit_denominator(16)
    assert (f"assume MFU {memory.DEFAULT_MFU:g} and a scaling efficiency of "
            f"{SCALING_EFFICIENCY['rdma']:g}.") in README
    assert f"Default MFU {memory.DEFAULT_MFU:g}." in cost
    assert (f"Scaling efficiency: {SCALING_EFFICIENCY['single_node']:.1f} on one node" in cost
            and f"{SCALING_EFFICIENCY['rdma']:g} across nodes with RDMA" in cost
            and f"{tcp.numerator}/{tcp.denominator} across nodes on TCP" in cost)
    assert f"the headroom ({memory.DEFAULT_HEADROOM:.0%}:" in cost
    assert aws_stop.STOP_ACTUAL_PERCENT == gcp_stop.STOP_ACTUAL_FRACTION * 100
    assert aws_stop.STOP_FORECAST_PERCENT == gcp_stop.STOP_FORECAST_FRACTION * 100
    for text in (README, billing):
        assert re.search(rf"forecast reach(?:es|ing) {aws_stop.STOP_FORECAST_PERCENT:g} %", text)
        assert f"last alert threshold capped at {aws_stop.STOP_ACTUAL_PERCENT:g} %" in text


def test_the_eri_counts_are_the_planners():
    """README's Alibaba row and docs/alicloud.md's type table give each eRDMA type's ERIs; the
    planner's eri_layout decides them (a primary ERI, plus a second on card 1 or not)."""
    from trainstack_components import catalog
    from trainstack_components.alicloud.planning import eri_layout

    def eris(name: str) -> int:
        primary, second = eri_layout(catalog.instance_type("alibaba", name), True)
        return int(primary) + (second is not None)
    big, small = eris("ecs.ebmgn8v.48xlarge"), eris("ecs.gn8v-8x.48xlarge")
    assert eris("ecs.gn8v-8x.16xlarge") == small
    assert f"(ebmgn8v: {big}; gn8v: {small})" in README
    alicloud = (ROOT / "docs" / "alicloud.md").read_text(encoding="utf-8")
    assert f"| ecs.ebmgn8v.48xlarge | 8 x H(96GB) | eRDMA: {big} ERIs" in alicloud
    assert f"| ecs.gn8v-8x.48xlarge, gn8v-8x.16xlarge | 8 x H(96GB) | eRDMA: {small} ERI " in alicloud
    assert eri_layout(catalog.instance_type("alibaba", "ecs.gn7e-c16g1.32xlarge"), True) == \
        (False, None) and "| ecs.gn7e-c16g1.32xlarge | 8 x A100-80GB | VPC TCP only (no ERI) |" \
        in alicloud


def test_the_gcp_limits_on_the_pages_are_the_planners():
    """Google Cloud limits docs/gcp.md and docs/capacity.md state, from components/gcp/planning."""
    from trainstack_components.gcp.planning import FLEX_MAX_HOURS, MAX_NOTIFICATION_CHANNELS
    gcp = " ".join((ROOT / "docs" / "gcp.md").read_text(encoding="utf-8").split())
    capacity = " ".join((ROOT / "docs" / "capacity.md").read_text(encoding="utf-8").split())
    assert f"one e-mail monitoring channel per address, at most {MAX_NOTIFICATION_CHANNELS}." in gcp
    assert f"`max_hours` must be at most {FLEX_MAX_HOURS}." in capacity
    assert f"to {FLEX_MAX_HOURS // 24} days" in capacity
