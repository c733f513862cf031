"""The generated parts of the deploy guides (docs/deploy/<cloud>.md), so that what the code
decides (what the example builds, which credentials count, which stack config a deploy needs,
what a destroy leaves billing) cannot drift from it.

A page marks each generated part with `<!-- generated:NAME -->` ... `<!-- /generated -->`;
`python tools/gen_docs.py` rewrites them, `--check` (and tests/repo/test_docs.py) fails when one
differs from what the code gives now.
"""
from __future__ import annotations

import functools
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PAGES = {cloud: ROOT / "docs" / "deploy" / f"{cloud}.md" for cloud in ("aws", "gcp", "azure",
                                                                       "alicloud")}
PAGES["readme"] = ROOT / "README.md"   # its abridged compare sample
PAGES["gcp-guide"] = ROOT / "docs" / "gcp.md"   # its Managed Lustre size table
# A block inside a list item is indented: its markers and every line of its body carry the
# same indent.
BLOCK = re.compile(r"^(?P<indent>[ ]*)<!-- generated:(?P<name>[\w:-]+) -->\n(?P<body>.*?)"
                   r"^(?P=indent)<!-- /generated -->", re.S | re.M)


@functools.lru_cache(maxsize=None)
def _plan(cloud: str):
    """The example's plan for `cloud`, rendered once per process: every block and fact of a
    cloud reads the same plan (a render runs the whole program under the mock engine)."""
    from trainstack.plan.engine import render
    from trainstack.plan.stacks import spec_file_config
    return render(spec_file_config(ROOT / "examples" / "cluster.yaml", cloud), stack=cloud,
                  project_dir=ROOT)


@functools.lru_cache(maxsize=None)
def _plan_with(cloud: str, **config: str):
    """The example's plan for `cloud` with extra stack config (e.g. a required key set)."""
    from trainstack.plan.engine import render
    from trainstack.plan.stacks import spec_file_config
    base = spec_file_config(ROOT / "examples" / "cluster.yaml", cloud)
    return render({**base, **config}, stack=cloud, project_dir=ROOT)


def credentials_block(cloud: str) -> str:
    from trainstack.deploy.lifecycle import CREDENTIALS
    need = CREDENTIALS[cloud]
    groups = " or ".join(" + ".join(f"`{v}`" for v in group) for group in need.env_any)
    files = " or ".join(f"`~/{f}`" for f in need.files)
    return (f"`up`, `preview`, `destroy` and `reap` look for {groups} in the environment, else "
            f"{files}; without any they stop before the Pulumi CLI runs and say: {need.how}. "
            "On a runner with an instance role or workload identity that trainstack cannot see, "
            "pass `--skip-credential-check`.\n")


def config_block(cloud: str) -> str:
    from trainstack.plan.required_config import required
    keys = required(cloud)
    lines = [f"- `{key}`: `pulumi config set {key} {value}`" for key, value in keys.items()]
    head = ("Stack config a deploy cannot do without (`up` and `preview` refuse until it is set; "
            "the offline commands warn):\n\n" if lines else
            "No stack config beyond the stack file `trainstack init` writes is required.\n")
    return head + ("\n".join(lines) + "\n" if lines else "")


def plan_block(cloud: str) -> str:
    plan = _plan(cloud)
    out, spec = plan.outputs, plan.inputs.spec
    rows = [("region / zone", f"{out.get('region')} / {out.get('zone')}"),
            ("nodes", f"{spec.nodes} x {out.get('instance_type')}"),
            ("fabric", str(out.get("interconnect"))),
            ("file system", f"{out.get('filesystem_capacity_gib'):,} GiB at "
                            f"{out.get('filesystem_throughput_mbps_per_tib')} MB/s/TiB"),
            ("price", f"{out.get('usd_per_hour')} USD/h for the nodes"),
            ("resources", f"{len(plan.resources)}")]
    warnings = [w.removeprefix("warning: ") for w in plan.warnings]
    text = "| what | the example's plan |\n|---|---|\n" + "".join(
        f"| {k} | {v} |\n" for k, v in rows)
    if warnings:
        text += "\nBefore a deploy, `trainstack plan` says:\n\n" + "".join(
            f"- {w}\n" for w in warnings)
    return text


def kept_block(cloud: str) -> str:
    plan = _plan(cloud)
    out = plan.outputs
    retained = plan.inputs.spec.bucket.retain_on_destroy
    if not retained:
        return "The spec sets `bucket.retain_on_destroy: false`: a destroy removes the bucket.\n"
    bucket = out.get("bucket_name")
    group = out.get("storage_resource_group")
    where = (f"the storage account's container `{bucket}` in the resource group `{group}`"
             if group else f"the bucket `{bucket}`")
    return (f"With `bucket.retain_on_destroy: true` (the default), `destroy` keeps {where} "
            "and records it in the stack config key `trainstack:adopt`, so the next `up` takes "
            "it back with its data. It bills for what it stores until you delete it.\n")


def bootstrap_block(cloud: str) -> str:
    """What `trainstack bootstrap` checks in the account for the example (trainstack.deploy.account),
    with the command that fixes each: the same list as docs/first-deploy.md's."""
    from trainstack.deploy.account import cluster_needs
    inputs = _plan(cloud).inputs
    wanted = cluster_needs(cloud, inputs.spec, inputs.selection)
    if not wanted:
        return (f"`trainstack bootstrap {cloud}` has nothing to check in the account on this cloud "
                "yet: it exits 0 at once.\n")
    return (f"`trainstack bootstrap {cloud}` first asks the cloud (through its CLI, read-only) "
            "whether the account has what the example needs, and exits 2 naming each thing "
            "missing, with the command that fixes it:\n\n" + "".join(
                f"- {n.what}: `{n.fix}`\n" for n in wanted))


def compare_block(which: str) -> str:
    """The README's abridged `trainstack compare --spec examples/cluster.yaml`, from --json."""
    import json

    from typer.testing import CliRunner

    from trainstack.cli.app import app
    assert which == "example"
    result = CliRunner().invoke(app, ["compare", "--spec", str(ROOT / "examples" / "cluster.yaml"),
                                      "--json"])
    doc = json.loads(result.stdout)
    rows = doc["clouds"]

    def money(value, unpriced):
        if value is None:
            return "-"
        return f"{value:,.2f} USD" + (" +?" if unpriced else "")

    def marks(r):
        return " ".join(m for m in ("cheapest", "fastest") if r.get(m))

    lines = [("", [r["cloud"] for r in rows]), ("", [marks(r) for r in rows]),
             ("instance type", [f"{r['nodes']} x {r['instance_type']}" if r["instance_type"]
                                else "-" for r in rows]),
             ("GPU", [f"{r['gpus']} x {r['gpu']}" if r["gpu"] else "-" for r in rows]),
             ("fabric", [r["fabric"] or "-" for r in rows]),
             ("capacity", [(r["capacity"] or "-").replace("_", " ").lower() for r in rows]),
             ("USD/h", [money(r["usd_per_hour"], False) for r in rows]),
             ("hours", [f"{r['hours']:.2f}" if r["hours"] is not None else "-" for r in rows]),
             ("total", [money(r["cost"]["total"], r["unpriced"]) for r in rows]),
             ("monthly run-rate", [money(r["monthly_run_rate"], r["unpriced"]) for r in rows]),
             ("policy", [r["policy"]["verdict"] for r in rows])]
    text = "$ trainstack compare --spec examples/cluster.yaml   (abridged; --json has every field)\n"
    for label, cells in lines:
        text += (f"{label:<17}" + "".join(f"{c:<30}" for c in cells)).rstrip() + "\n"
    for r in rows:
        if r["unpriced"]:
            text += f"{r['cloud']}: unpriced: {'; '.join(r['unpriced'])}\n"
        if r["status"] == "error":
            text += f"{r['cloud']}: selection failed: {r['message']}\n"
    return "```\n" + text + "```\n"


def lustre_tiers_block(cloud: str) -> str:
    """docs/gcp.md's Managed Lustre sizes per tier, from the planner's LUSTRE_TIERS."""
    from trainstack_components.gcp.planning import LUSTRE_TIERS
    assert cloud == "gcp"
    text = ("| tier (MB/s/TiB) | minimum and step | above the threshold | maximum |\n"
            "|---|---|---|---|\n")
    for mbps, tier in sorted(LUSTRE_TIERS.items()):
        above = ("" if tier.threshold >= tier.maximum and tier.big_step == tier.step else
                 f"{tier.big_step:,} GiB steps above {tier.threshold:,} GiB")
        minimum = (f"{tier.minimum:,} GiB" if tier.minimum == tier.step else
                   f"{tier.minimum:,} GiB, then {tier.step:,} GiB steps")
        text += f"| {mbps} | {minimum} | {above} | {tier.maximum:,} GiB |\n"
    return text


GENERATORS = {"lustre-tiers": lustre_tiers_block, "compare": compare_block, "plan": plan_block,
              "credentials": credentials_block, "config": config_block,
              "bootstrap": bootstrap_block, "kept": kept_block}


def expected(name: str, indent: str = "") -> str:
    kind, cloud = name.split(":")
    return "".join(indent + line if line.strip() else line
                   for line in GENERATORS[kind](cloud).splitlines(keepends=True))


def stale_blocks(text: str) -> list[str]:
    """The generated blocks of a page whose text is not what the code gives now."""
    return [m["name"] for m in BLOCK.finditer(text)
            if m["body"] != expected(m["name"], m["indent"])]


def regenerate(text: str) -> str:
    return BLOCK.sub(lambda m: f"{m['indent']}<!-- generated:{m['name']} -->\n"
                               f"{expected(m['name'], m['indent'])}{m['indent']}<!-- /generated -->",
                     text)


def sections(text: str) -> list[str]:
    return [line[3:].strip() for line in text.splitlines() if line.startswith("## ")]


# Facts stated inline in prose pages: `<!-- fact:NAME -->value<!-- /fact -->`, each checked
# against what the code gives now (a change to the plan that makes the sentence false fails).
FACT = re.compile(r"<!-- fact:(?P<name>[\w-]+) -->(?P<value>.*?)<!-- /fact -->", re.S)
FACT_PAGES = sorted((ROOT / "docs").glob("*.md")) + sorted(PAGES.values())


def _gcp_filesystem() -> str:
    out = _plan("gcp").outputs
    return (f"{out['filesystem_capacity_gib']:,} GiB at "
            f"{out['filesystem_throughput_mbps_per_tib']} MB/s/TiB")


def _gcp_iap_range() -> str:
    plan = _plan("gcp")
    rule = next(r for r in plan.resources if r.type == "gcp:compute/firewall:Firewall"
                and r.name.endswith("-iap-ssh"))
    return ", ".join(rule.inputs["sourceRanges"])


def _gcp_apis() -> str:
    """The APIs the gcp plan enables (projects.Service), in the order it declares them; the page
    once listed the cluster's nine and not the budget stop's six."""
    names = [r.inputs["service"].removesuffix(".googleapis.com") for r in _plan("gcp").resources
             if r.type == "gcp:projects/service:Service"]
    return ", ".join(names[:-1]) + " and " + names[-1]


def _gcp_range(kind: str) -> str:
    """The host subnet's CIDR ("host") or the Private Service Access range ("psa") of the plan."""
    plan = _plan("gcp")
    for r in plan.resources:
        if kind == "host" and r.type == "gcp:compute/subnetwork:Subnetwork" \
                and r.name == f"{plan.inputs.spec.name}-subnet":
            return r.inputs["ipCidrRange"]
        if kind == "psa" and r.type == "gcp:compute/globalAddress:GlobalAddress":
            return f"{r.inputs['address']}/{r.inputs['prefixLength']:g}"
    raise LookupError(kind)


def _azure_resources(grants: bool) -> str:
    """How many resources `trainstack plan` counts for the azure example: as it is (no Lustre
    provider object id: no grants), or with the id set (the two grants and their wait)."""
    if not grants:
        return str(len(_plan("azure").resources))
    some_id = "00000000-0000-0000-0000-000000000000"
    return str(len(_plan_with("azure", **{"trainstack:azureLustreProviderObjectId": some_id})
                   .resources))


def _boot_steps(cloud: str) -> str:
    """The boot steps in the order the example's nodes run them (the plan's node_boot output)."""
    return ", ".join(re.findall(r"(?:^|; )([a-z-]+): ", _plan(cloud).outputs["node_boot"]))


def _azure_lustre(what: str) -> str:
    """Azure Managed Lustre's Durable-Premium tiers as the planner sizes them (LUSTRE_SKUS)."""
    from trainstack_components.azure.planning import LUSTRE_SKUS, lustre_sku
    if what == "tiers":
        return (", ".join(str(s.mbps_per_tib) for s in LUSTRE_SKUS)
                + "".join(f"; {asked} -> {lustre_sku(asked).mbps_per_tib}" for asked in (200, 1000)))
    return (" / ".join(f"{s.step_tib:g}" for s in LUSTRE_SKUS) + " TiB, which is also its minimum; "
            "maxima " + " / ".join(f"{s.max_tib:g}" for s in LUSTRE_SKUS) + " TiB")


def _azure_constant(name: str) -> str:
    from trainstack_components.azure import planning
    value = getattr(planning, name)
    return str(value["version"] if name == "IMAGE" else value)


def _alicloud_rank0() -> str:
    """Rank 0's fixed address on Alibaba Cloud (the README once said 10.44.15.200 for any size)."""
    return _plan("alicloud").outputs["node_private_ips"][0]


def _alicloud_data_dir() -> str:
    """Where the bucket's data is on an Alibaba node: the data flow's fileset, as seen from the
    exported directory the nodes mount at MOUNT_PATH (the README once said /lustre/bucket/)."""
    from trainstack_components.boot.model import MOUNT_PATH
    out = _plan("alicloud").outputs
    mounted, linked = out["filesystem_node_path"], out["filesystem_bucket_path"]
    if not linked.startswith(mounted):
        raise ValueError(f"the nodes mount {mounted}, outside the data flow's {linked}")
    return f"{MOUNT_PATH}/{linked[len(mounted):]}"


@functools.lru_cache(maxsize=None)
def _trial_prices() -> str:
    """What `trainstack trial` prices one node of the example at, per cloud, cheapest first: the
    runner's own price_attempt on each cloud's stack moved to one node (three renders)."""
    import yaml

    from trainstack.trial.plan import TrialHours, attempt_config, base_config, price_attempt
    spec = yaml.safe_load((ROOT / "examples" / "cluster.yaml").read_text(encoding="utf-8"))
    hours, prices = TrialHours(), []
    for cloud in ("aws", "gcp", "azure"):
        where = spec["clouds"][cloud]
        config = attempt_config(base_config(ROOT, cloud), cloud, where["region"], where["zone"],
                                1, hours.lifetime, workload_lifetime="workload" in spec)
        prices.append(price_attempt(ROOT, cloud, config, hours, 0.0)[0])
    return "; ".join(
        f"{p.cloud} ({p.instance_type} {p.capacity.replace('_', ' ')}, {p.node_usd_per_hour:.2f} "
        f"USD/h x {p.hours:g} h, {p.filesystem_gib:,.0f} GiB of file system) {p.total:.2f} USD"
        for p in sorted(prices, key=lambda p: p.total))


def _vcpus(cloud: str, nodes: int = 1) -> str:
    """The vCPUs of `nodes` of the example's nodes on `cloud` (what the quotas count)."""
    plan = _plan(cloud)
    count = plan.inputs.selection.instance.vcpus * (nodes or plan.inputs.spec.nodes)
    return f"{count:,}"


FACTS = {"gcp-filesystem": _gcp_filesystem, "gcp-iap-range": _gcp_iap_range,
         "gcp-apis": _gcp_apis, "gcp-host-cidr": lambda: _gcp_range("host"),
         "gcp-psa-range": lambda: _gcp_range("psa"),
         "azure-boot-steps": lambda: _boot_steps("azure"),
         "azure-lustre-tiers": lambda: _azure_lustre("tiers"),
         "azure-lustre-sizes": lambda: _azure_lustre("sizes"),
         "azure-image-version": lambda: _azure_constant("IMAGE"),
         "azure-placement-limit": lambda: _azure_constant("SINGLE_PLACEMENT_GROUP_LIMIT"),
         "azure-budget-notifications": lambda: _azure_constant("MAX_BUDGET_NOTIFICATIONS"),
         "azure-resources": lambda: _azure_resources(False),
         "azure-resources-grants": lambda: _azure_resources(True),
         "aws-node-vcpus": lambda: _vcpus("aws"), "aws-cluster-vcpus": lambda: _vcpus("aws", 0),
         "azure-node-vcpus": lambda: _vcpus("azure"),
         "trial-prices": _trial_prices,
         "alicloud-rank0": _alicloud_rank0, "alicloud-data-dir": _alicloud_data_dir}


def wrong_facts(text: str) -> list[str]:
    """'NAME: the page says X, the code gives Y' for each inline fact that is false now."""
    wrong = []
    for m in FACT.finditer(text):
        actual = FACTS[m["name"]]()
        if m["value"] != actual:
            wrong.append(f"{m['name']}: the page says {m['value']!r}, the code gives {actual!r}")
    return wrong
