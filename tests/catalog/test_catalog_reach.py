"""Catalog reach (issue 35): every GPU instance type the providers list publicly is priced, with a
source and a date, or recorded in components/catalog/unpriced.csv as listed-but-unpriced with the
source that lists it and why no price was found; never silently missing.

The expected lists are written here from the providers' public type lists, not read from the
catalog under test; each list names its source (LISTED_BY). Which types are listed-but-unpriced
is written here too (UNPRICED), so a price row that disappears fails the first test: its type is
then neither priced nor recorded as unpriced.
"""
from __future__ import annotations

import csv
import re
from pathlib import Path

import pytest

from trainstack_components import catalog
from trainstack_policies import catalog as pack_catalog
from trainstack_policies import inventory, pricing
from tests.policy_fixtures import res

ROOT = Path(__file__).resolve().parents[2]


def _sizes(family: str, *sizes: str) -> list[str]:
    return [f"{family}.{s}" for s in sizes]


LISTED_BY = {
    "aws": "the EC2 API's InstanceType enum (botocore 1.43.117 data/ec2/2016-11-15/service-2.json), "
           "families P/G/Gr/Inf/Trn/DL as on docs.aws.amazon.com/ec2/latest/instancetypes/ac.html "
           "(the pack treats Inferentia/Trainium/Gaudi/DL2q like GPUs: policies/inventory "
           "GPU_FAMILIES)",
    "gcp": "gcloud compute machine-types list as recorded in github.com/Cyclenerd/"
           "google-cloud-pricing-cost-calculator tools/machinetypes.csv @dac31281f2a4575f0a8bff20ac04fc71"
           "a5ff2190 (2026-08-20): A2, A3 (High/Mega/Ultra/Edge), A4, A4X, A4X Max, G2, G4 (TPU "
           "ct* types are not GPU types and are out of scope)",
    "azure": "learn.microsoft.com/azure/virtual-machines/sizes/gpu-accelerated/ (NC, ND, NV, NG "
             "families) and the AKS size list github.com/microsoft/aspire src/Aspire.Hosting.Azure."
             "Kubernetes/AksNodeVmSizes.cs @5bd693ae1897dee5e2ce71c2cc08879c1c7eff51",
    "alibaba": "alibabacloud.com/help/en/ecs/user-guide/gpu-accelerated-compute-optimized-and-vgpu-"
               "accelerated-instance-families-1 (families) and the pay-as-you-go sizes in github.com/"
               "sugarlxn/skypilot-catalog catalogs/v8/alicloud/vms.csv @003c56a723d369190b11308e630e4"
               "cfd33e25c86 (its fetcher lists what DescribeZones offers); the gn7/gn5/gn5i sizes of "
               "github.com/AlibabaCloudDocs/ecs (ALIBABA_DOCS_ONLY)",
}

AWS = [
    *_sizes("p2", "xlarge", "8xlarge", "16xlarge"),
    *_sizes("p3", "2xlarge", "8xlarge", "16xlarge"), "p3dn.24xlarge",
    "p4d.24xlarge", "p4de.24xlarge", "p5.4xlarge", "p5.48xlarge", "p5e.48xlarge", "p5en.48xlarge",
    "p6-b200.48xlarge", "p6-b300.48xlarge", "p6e-gb200.36xlarge",
    *_sizes("g2", "2xlarge", "8xlarge"),
    *_sizes("g3", "4xlarge", "8xlarge", "16xlarge"), "g3s.xlarge",
    *_sizes("g4ad", "xlarge", "2xlarge", "4xlarge", "8xlarge", "16xlarge"),
    *_sizes("g4dn", "xlarge", "2xlarge", "4xlarge", "8xlarge", "12xlarge", "16xlarge", "metal"),
    *_sizes("g5", "xlarge", "2xlarge", "4xlarge", "8xlarge", "12xlarge", "16xlarge", "24xlarge",
            "48xlarge"),
    *_sizes("g5g", "xlarge", "2xlarge", "4xlarge", "8xlarge", "16xlarge", "metal"),
    *_sizes("g6", "xlarge", "2xlarge", "4xlarge", "8xlarge", "12xlarge", "16xlarge", "24xlarge",
            "48xlarge"),
    *_sizes("g6e", "xlarge", "2xlarge", "4xlarge", "8xlarge", "12xlarge", "16xlarge", "24xlarge",
            "48xlarge"),
    *_sizes("g6f", "large", "xlarge", "2xlarge", "4xlarge"),
    *_sizes("gr6", "4xlarge", "8xlarge"), "gr6f.4xlarge",
    *_sizes("g7", "2xlarge", "4xlarge", "8xlarge", "12xlarge", "24xlarge", "48xlarge"),
    *_sizes("g7e", "2xlarge", "4xlarge", "8xlarge", "12xlarge", "24xlarge", "48xlarge"),
    *_sizes("inf1", "xlarge", "2xlarge", "6xlarge", "24xlarge"),
    *_sizes("inf2", "xlarge", "8xlarge", "24xlarge", "48xlarge"),
    *_sizes("trn1", "2xlarge", "32xlarge"), "trn1n.32xlarge",
    *_sizes("trn2", "3xlarge", "48xlarge"), "trn2u.48xlarge",
    "dl1.24xlarge", "dl2q.24xlarge",
]
GCP = [
    *[f"a2-highgpu-{n}g" for n in (1, 2, 4, 8)], "a2-megagpu-16g",
    *[f"a2-ultragpu-{n}g" for n in (1, 2, 4, 8)],
    *[f"a3-highgpu-{n}g" for n in (1, 2, 4, 8)], "a3-megagpu-8g", "a3-ultragpu-8g",
    "a3-ultragpu-8g-nolssd", "a3-edgegpu-8g", "a3-edgegpu-8g-nolssd",
    "a4-highgpu-8g", "a4x-highgpu-4g", "a4x-maxgpu-4g-metal",
    *[f"g2-standard-{n}" for n in (4, 8, 12, 16, 24, 32, 48, 96)],
    *[f"g4-standard-{n}" for n in (6, 12, 24, 48, 96, 192, 384)],
]
# GPUs attached to N1 machines (cloud.google.com/compute/docs/gpus), priced per GPU on top of the
# machine in components/catalog/gcp_attached_gpus.csv.
GCP_N1_GPUS = ["nvidia-tesla-t4", "nvidia-tesla-p4", "nvidia-tesla-v100", "nvidia-tesla-p100"]
# The N1 predefined machine types those GPUs attach to (cloud.google.com/compute/docs/
# general-purpose-machines#n1_machines: n1-standard 1-96 vCPUs at 3.75 GB per vCPU, n1-highmem 2-96
# at 6.5 GB, n1-highcpu 2-96 at 0.9 GB), each priced as a machine row in gcp_attached_gpus.csv in
# every region that file prices an N1 GPU in.
GCP_N1_MACHINES = {
    **{f"n1-standard-{n}": (n, 3.75 * n) for n in (1, 2, 4, 8, 16, 32, 64, 96)},
    **{f"n1-highmem-{n}": (n, 6.5 * n) for n in (2, 4, 8, 16, 32, 64, 96)},
    **{f"n1-highcpu-{n}": (n, 0.9 * n) for n in (2, 4, 8, 16, 32, 64, 96)},
}
GCP_N1_REGIONS = ["us-central1", "us-east1", "us-west1", "us-east4", "europe-west1", "europe-west4"]
# Google's N1 predefined rates in us-central1 (cloud.google.com/compute/vm-instance-pricing, "N1
# predefined vCPUs" and "N1 predefined memory"): USD per vCPU-hour and per GB-hour.
N1_VCPU_USD_HR, N1_GB_USD_HR = 0.031611, 0.004237
AZURE = [f"Standard_{s}" for s in (
    "NC4as_T4_v3", "NC8as_T4_v3", "NC16as_T4_v3", "NC64as_T4_v3",
    "NC6s_v3", "NC12s_v3", "NC24s_v3", "NC24rs_v3",
    "NC24ads_A100_v4", "NC48ads_A100_v4", "NC96ads_A100_v4",
    "NC8ads_A10_v4", "NC16ads_A10_v4", "NC32ads_A10_v4",
    "NC40ads_H100_v5", "NC80adis_H100_v5", "NCC40ads_H100_v5",
    "NC24lds_xl_RTXPRO6000BSE_v6", "NC144ds_xl_RTXPRO6000BSE_v6",
    "NC144lds_xl_RTXPRO6000BSE_v6", "NC288ds_xl_RTXPRO6000BSE_v6",
    "NC288lds_xl_RTXPRO6000BSE_v6",
    "ND40rs_v2", "ND96asr_v4", "ND96amsr_A100_v4", "ND96isr_H100_v5", "ND96isr_H200_v5",
    "ND96isr_MI300X_v5", "ND128isr_NDR_GB200_v6", "ND128isr_GB300_v6",
    "NV6ads_A10_v5", "NV12ads_A10_v5", "NV18ads_A10_v5", "NV36ads_A10_v5", "NV36adms_A10_v5",
    "NV72ads_A10_v5",
    "NV12s_v3", "NV24s_v3", "NV48s_v3",
    "NV4as_v4", "NV8as_v4", "NV16as_v4", "NV32as_v4",
    "NV4ads_V710_v5", "NV8ads_V710_v5", "NV12ads_V710_v5", "NV24ads_V710_v5", "NV28adms_V710_v5",
    "NG8ads_V620_v1", "NG16ads_V620_v1", "NG32ads_V620_v1", "NG32adms_V620_v1")]
_SGN8GA_WY = ("8g-m2.xlarge", "12g-m2.3large", "16g-m1.2xlarge", "16g-m2.2xlarge",
              "16g-m4.2xlarge", "32g-m4.4xlarge", "32g-m8.4xlarge", "32g-m12.4xlarge",
              "64g-m8.8xlarge", "64g-m12.8xlarge", "64g-m16.8xlarge", "64g-m24.8xlarge",
              "64g-x1.8xlarge", "64g-x1-ne.8xlarge", "128g-m24.16xlarge", "128g-x1.16xlarge",
              "256g-x1.16xlarge", "256g-x1.32xlarge", "256g-x2.16xlarge", "256g-x2-ne.16xlarge",
              "384g-x4.24xlarge", "384g-x4-ne.24xlarge", "512g-x1.64xlarge",
              "1024g-x4-ne.32xlarge")
ALIBABA = [f"ecs.{s}" for s in (
    "gn5-c4g1.xlarge", "gn5-c8g1.2xlarge", "gn5-c8g1.4xlarge", "gn5-c28g1.7xlarge",
    "gn5i-c12g1.6xlarge", "gn5i-c40g1.10xlarge", "gn5i-c48g1.12xlarge",
    "gn6i-c4g1.xlarge", "gn6i-c8g1.2xlarge", "gn6i-c16g1.4xlarge", "gn6i-c24g1.6xlarge",
    "gn6i-c40g1.10xlarge", "gn6i-c24g1.12xlarge", "gn6i-c24g1.24xlarge",
    "gn6v-c8g1.2xlarge", "gn6v-c8g1.4xlarge", "gn6v-c8g1.8xlarge", "gn6v-c8g1.16xlarge",
    "gn6v-c10g1.20xlarge",
    "gn6e-c12g1.3xlarge", "gn6e-c12g1.12xlarge", "gn6e-c12g1.24xlarge",
    "gn7-c12g1.3xlarge",
    "gn7i-c8g1.2xlarge", "gn7i-c16g1.4xlarge", "gn7i-c32g1.8xlarge", "gn7i-c48g1.12xlarge",
    "gn7i-c56g1.14xlarge", "gn7i-c32g1.16xlarge", "gn7i-c32g1.32xlarge", "gn7i-2x.8xlarge",
    "gn7i-4x.8xlarge", "gn7i-4x.16xlarge",
    "gn7s-c8g1.2xlarge", "gn7s-c16g1.4xlarge", "gn7s-c32g1.8xlarge", "gn7s-c48g1.12xlarge",
    "gn7s-c56g1.14xlarge", "gn7s-c32g1.16xlarge", "gn7s-c32g1.32xlarge",
    "gn7e-c16g1.4xlarge", "gn7e-c16g1.8xlarge", "gn7e-c16g1.16xlarge", "gn7e-c16g1.32xlarge",
    "gn7t-c16g1.4xlarge", "gn7t-c16g1.8xlarge", "gn7t-c16g1.16xlarge", "gn7t-c16g1.32xlarge",
    "gn7r-c16g1.4xlarge",
    "gn8is.2xlarge", "gn8is.4xlarge", "gn8is-2x.8xlarge", "gn8is-4x.16xlarge",
    "gn8is-8x.32xlarge", "gn8ia.4xlarge", "gn8ia.8xlarge", "gn8ia.16xlarge",
    "gn8v.4xlarge", "gn8v.6xlarge", "gn8v-2x.8xlarge", "gn8v-2x.12xlarge", "gn8v-4x.8xlarge",
    "gn8v-4x.24xlarge", "gn8v-8x.16xlarge", "gn8v-8x.48xlarge",
    "gn8e.6xlarge", "gn8e-2x.12xlarge", "gn8e-4x.24xlarge", "gn8e-8x.48xlarge",
    "gn8ep.6xlarge", "gn8ep-2x.12xlarge", "gn8ep-4x.24xlarge", "gn8ep-8x.48xlarge",
    "gn8t.4xlarge", "gn8t-2x.8xlarge", "gn8t-4x.16xlarge", "gn8t-8x.32xlarge",
    "gn8te.4xlarge", "gn8te.8xlarge", "gn8te.16xlarge",
    "gn8ga.8xlarge", "gn8ga.16xlarge", "gn8ga-2x.32xlarge", "gn8ga-4x.24xlarge",
    "gn8ga-4x.32xlarge", "gn8ga-4x.64xlarge",
    "gn9t.6xlarge", "gn9t-2x.12xlarge", "gn9t-4x.24xlarge",
    "gn9g.4xlarge", "gn9g.8xlarge", "gn9g-2x.16xlarge", "gn9g-4x.32xlarge", "gn9g-8x.64xlarge",
    "gn9gc.4xlarge", "gn9gc.8xlarge", "gn9gc-2x.16xlarge", "gn9gc-4x.32xlarge",
    "gn9gc-8x.64xlarge",
    "ebmgn6i.24xlarge", "ebmgn6v.24xlarge", "ebmgn7i.32xlarge", "ebmgn7ix.32xlarge",
    "ebmgn7v.32xlarge", "ebmgn7e.32xlarge", "ebmgn7t.32xlarge", "ebmgn8is.32xlarge",
    "ebmgn8v.48xlarge", "ebmgn8t.32xlarge", "ebmgn8ts.32xlarge", "ebmgn8te.32xlarge",
    "ebmgn8ga.64xlarge", "ebmgn9t.48xlarge", "ebmgn9gc.64xlarge", "ebmgn9ge.64xlarge",
    "sccgn7ex.32xlarge",
    "sgn6i-vws-m2.xlarge", "sgn6i-vws-m4.2xlarge", "sgn6i-vws-m8.4xlarge",
    "vgn6i-m4-vws.xlarge", "vgn6i-m8-vws.2xlarge", "vgn6i-m16-vws.5xlarge",
    "sgn7i-vws-m2.xlarge", "sgn7i-vws-m2s.xlarge", "sgn7i-vws-m4.2xlarge",
    "sgn7i-vws-m4s.2xlarge", "sgn7i-vws-m8.4xlarge", "sgn7i-vws-m8s.4xlarge",
    "vgn7i-vws-m4.xlarge", "vgn7i-vws-m8.2xlarge", "vgn7i-vws-m12.3xlarge",
    "vgn7i-vws-m24.7xlarge",
    "sgn8ia-m2.xlarge", "sgn8ia-m4.2xlarge", "sgn8ia-m8.4xlarge", "sgn8ia-m16.8xlarge",
    "sgn8ia-m24.12xlarge", "sgn8ia-m48.24xlarge",
    *[f"sgn8ga-wy-{s}" for s in _SGN8GA_WY],
    "ebmgp7i.48xlarge", "ebmgp7ix.48xlarge", "ebmgi6s.24xlarge",
    "ga1.xlarge", "ga1.2xlarge", "ga1.4xlarge")]
# Full-GPU sizes Alibaba's own docs list that the price sources above lack (catalog60):
# github.com/AlibabaCloudDocs/ecs intl.en-US/Instance/Instance type families/Compute optimized type
# family with GPU/GPU-accelerated compute optimized instance types.md @342402335d2f (2021-06-07).
ALIBABA_DOCS_ONLY = [f"ecs.{s}" for s in (
    "gn7-c13g1.13xlarge", "gn7-c13g1.26xlarge", "gn5-c4g1.2xlarge", "gn5-c8g1.8xlarge",
    "gn5-c28g1.14xlarge", "gn5-c8g1.14xlarge", "gn5i-c2g1.large", "gn5i-c4g1.xlarge",
    "gn5i-c8g1.2xlarge", "gn5i-c16g1.4xlarge", "gn5i-c16g1.8xlarge", "gn5i-c28g1.14xlarge")]
ALIBABA += ALIBABA_DOCS_ONLY

PUBLIC = {"aws": AWS, "gcp": GCP, "azure": AZURE, "alibaba": ALIBABA}

# Listed publicly with no public pay-as-you-go price found (or found but not yet transcribed):
# recorded in components/catalog/unpriced.csv with the source that lists each and the reason, so
# the pack fails closed on them naming why (a guess would pass a real bill).
_NOT_TRANSCRIBED = [n for n in ALIBABA if n.split(".", 1)[1].split("-")[0].split(".")[0] in (
    "sgn8ga",)]
UNPRICED = {
    "aws": ["p5e.48xlarge", "p6e-gb200.36xlarge", "trn2.3xlarge", "trn2.48xlarge",
            "trn2u.48xlarge"],
    "gcp": ["a3-ultragpu-8g-nolssd", "a3-edgegpu-8g", "a3-edgegpu-8g-nolssd", "a4x-highgpu-4g",
            "a4x-maxgpu-4g-metal"],
    "azure": ["Standard_ND128isr_NDR_GB200_v6", "Standard_ND128isr_GB300_v6"],
    "alibaba": ["ecs.gn5i-c12g1.6xlarge", "ecs.gn7-c12g1.3xlarge", "ecs.ebmgn9gc.64xlarge",
                "ecs.ebmgn9t.48xlarge", "ecs.ga1.xlarge", "ecs.ga1.2xlarge", "ecs.ga1.4xlarge",
                "ecs.ebmgi6s.24xlarge", *_NOT_TRANSCRIBED, *ALIBABA_DOCS_ONLY],
}


def _unpriced_rows() -> list[dict]:
    with open(ROOT / "components" / "catalog" / "unpriced.csv", newline="") as fh:
        return list(csv.DictReader(fh))


@pytest.mark.parametrize("cloud", sorted(PUBLIC))
def test_every_public_gpu_type_is_priced_or_listed_unpriced_with_its_source(cloud):
    """The catalog test that lists every public GPU type per provider (LISTED_BY[cloud] names the
    list): each is priced in some region (every row with a source, a date and a price above 0) or
    recorded as listed-but-unpriced with the source that lists it and the reason."""
    assert LISTED_BY[cloud]
    assert len(PUBLIC[cloud]) == len(set(PUBLIC[cloud]))
    unpriced, missing = [], []
    for name in PUBLIC[cloud]:
        rows = [p for p in catalog.prices() if p.cloud == cloud and p.instance_type == name]
        listed = catalog.unpriced_type(cloud, name)
        if rows:
            assert listed is None, f"{name} is priced and recorded as unpriced"
            for row in rows:
                assert row.ondemand_usd_hr > 0 and row.source.strip() and row.as_of.strip(), row
            assert catalog.instance_type(cloud, name).gpu_count >= 1
        elif listed is not None:
            assert listed.listed_by.strip() and listed.reason.strip() and listed.as_of.strip()
            assert listed.gpu_count >= 1
            unpriced.append(name)
        else:
            missing.append(name)
    assert missing == [], f"{cloud}: listed publicly ({LISTED_BY[cloud]}), neither priced nor " \
                          f"recorded as unpriced: {missing}"
    assert sorted(unpriced) == sorted(UNPRICED[cloud])


@pytest.mark.parametrize("cloud", sorted(PUBLIC))
def test_the_pack_prices_every_public_type_as_the_catalog_does(cloud):
    pack_cloud = {"alibaba": "alicloud"}.get(cloud, cloud)
    for name in PUBLIC[cloud]:
        for row in (p for p in catalog.prices() if p.cloud == cloud and p.instance_type == name):
            got = pack_catalog.price(pack_cloud, name, row.region)
            assert (got.ondemand_usd_hr, got.spot_usd_hr, got.as_of) == \
                (row.ondemand_usd_hr, row.spot_usd_hr, row.as_of)


def test_gcp_gpus_attached_to_n1_are_each_priced_with_a_source():
    with open(ROOT / "components" / "catalog" / "gcp_attached_gpus.csv", newline="") as fh:
        rows = [r for r in csv.DictReader(fh) if r["kind"] == "accelerator"]
    for gpu in GCP_N1_GPUS:
        mine = [r for r in rows if r["name"] == gpu]
        assert mine, gpu
        assert all(float(r["ondemand_usd_hr"]) > 0 and r["source"] and r["as_of"] for r in mine)


def _attached_rows() -> list[dict]:
    with open(ROOT / "components" / "catalog" / "gcp_attached_gpus.csv", newline="") as fh:
        return list(csv.DictReader(fh))


@pytest.mark.parametrize("machine", sorted(GCP_N1_MACHINES))
def test_every_n1_shape_a_gpu_attaches_to_is_priced_where_n1_gpus_are(machine):
    """Each N1 predefined shape has a machine row, with a source and a dated as_of, in each region
    where an N1 GPU is priced; the pack reads the same figure (a node with an attached GPU is
    machine + GPUs, so a missing machine row fails the node closed)."""
    rows = {r["region"]: r for r in _attached_rows() if r["kind"] == "machine"
            and r["name"] == machine}
    gpu_regions = {r["region"] for r in _attached_rows() if r["kind"] == "accelerator"}
    assert gpu_regions == set(GCP_N1_REGIONS)
    assert sorted(rows) == sorted(GCP_N1_REGIONS), machine
    for region, row in rows.items():
        assert float(row["ondemand_usd_hr"]) > 0 and row["source"].strip(), row
        assert re.match(r"20\d\d-\d\d-\d\d ", row["as_of"]), row
        got = pack_catalog.attached_part("machine", machine, region)
        assert got is not None and got.ondemand_usd_hr == float(row["ondemand_usd_hr"])


@pytest.mark.parametrize("machine", sorted(GCP_N1_MACHINES))
def test_n1_rows_in_us_central1_are_googles_vcpu_and_memory_rates(machine):
    """N1 is billed per vCPU and per GB of memory: the us-central1 row is vCPUs x 0.031611 + GB x
    0.004237 (worked by hand from Google's table; the older SkyPilot rows round to 5 digits)."""
    vcpus, gb = GCP_N1_MACHINES[machine]
    [row] = [r for r in _attached_rows() if r["kind"] == "machine" and r["name"] == machine
             and r["region"] == "us-central1"]
    assert float(row["ondemand_usd_hr"]) == pytest.approx(
        vcpus * N1_VCPU_USD_HR + gb * N1_GB_USD_HR, rel=2e-5, abs=1e-6)


def test_every_price_row_names_a_date():
    """Every estimate names the catalog's date (issue 35): each instance, N1 machine and attached
    GPU row's as_of holds a date, YYYY-MM-DD, even where the snapshot's own date is unknown (then
    the day it was read, or a bound)."""
    rows = [(p.instance_type, p.region, p.as_of) for p in catalog.prices()]
    rows += [(r["name"], r["region"], r["as_of"]) for r in _attached_rows()]
    undated = [r for r in rows if not re.search(r"20\d\d-\d\d-\d\d", r[2])]
    assert undated == []


def test_every_unpriced_record_is_a_listed_type_without_any_price():
    for row in _unpriced_rows():
        cloud, name = row["cloud"], row["instance_type"]
        assert name in PUBLIC[cloud], (cloud, name)
        assert not any(p.cloud == cloud and p.instance_type == name for p in catalog.prices())
        assert all(row[k].strip() for k in ("gpu", "gpu_count", "listed_by", "reason", "as_of"))


def test_the_aws_list_covers_every_accelerated_type_the_installed_ec2_api_names():
    """A new family in the SDK's EC2 InstanceType enum (botocore) must be added above, priced or
    recorded as unpriced; the enum is the EC2 API's own list of types."""
    botocore_session = pytest.importorskip("botocore.session")
    import re
    enum = botocore_session.get_session().get_service_model("ec2").shape_for("InstanceType").enum
    accelerated = re.compile(r"^(p\d|g\d|gr\d|trn\d|inf\d|dl\d)[a-z0-9-]*\.")
    assert sorted(set(t for t in enum if accelerated.match(t)) - set(AWS)) == []


# The region the pack prices each cloud's unpriced types in, in the refusal below.
REGION = {"aws": "us-east-1", "gcp": "us-central1", "azure": "westeurope",
          "alibaba": "cn-hangzhou"}
TOKEN = {"aws": "aws:autoscaling/group:Group",
         "gcp": "gcp:compute/instanceGroupManager:InstanceGroupManager",
         "azure": "azure-native:compute:VirtualMachineScaleSet",
         "alibaba": "alicloud:ess/scalingGroup:ScalingGroup"}


@pytest.mark.parametrize("row", _unpriced_rows(), ids=lambda r: f"{r['cloud']}-{r['instance_type']}")
def test_the_pack_fails_closed_on_each_unpriced_type_naming_the_missing_price(row):
    cloud, name = row["cloud"], row["instance_type"]
    pack_cloud = {"alibaba": "alicloud"}.get(cloud, cloud)
    group = inventory.NodeGroup(res(TOKEN[cloud], "nodes"), None, name, 2, False, [""],
                                REGION[cloud], [name])
    est = pricing.estimate([group], [], [])
    assert est.lines == [] and len(est.missing) == 1, (pack_cloud, est.missing)
    [why] = est.missing
    assert f"{name} in {REGION[cloud]}" in why and "has no catalog price" in why
    assert row["listed_by"] in why and row["reason"] in why
    assert pack_catalog.unpriced(pack_cloud, name) is not None


# Hand-read from the vendored source rows (components/catalog/sources/gpu_instances.csv), each
# traced to its public file: tsaol/aws-gpu all_gpu_instances.js g5.xlarge us-east-1 onDemand
# 1.006; Cyclenerd pricing.yml g2-standard-4 us-central1 hour 0.706832255; azure-pricing-radar
# vm-eu-west.json "NV36ads A10 v5" westeurope 4.16; sugarlxn alicloud vms.csv gn7i-c8g1.2xlarge
# cn-hangzhou-j/-k 1.3270908 (CNY x 0.138).
SINGLE_GPU = [("aws", "g5.xlarge", "us-east-1", "A10G"),
              ("gcp", "g2-standard-4", "us-central1", "L4"),
              ("azure", "Standard_NV36ads_A10_v5", "westeurope", "A10"),
              ("alibaba", "ecs.gn7i-c8g1.2xlarge", "cn-hangzhou", "A10")]


@pytest.mark.parametrize("cloud, name, region, gpu", SINGLE_GPU)
def test_single_gpu_inference_types_are_one_gpu_and_priced_in_their_region(cloud, name, region,
                                                                           gpu):
    t = catalog.instance_type(cloud, name)
    assert (t.gpu, t.gpu_count) == (gpu, 1)
    assert catalog.price(cloud, name, region) is not None


def test_the_planner_chooses_only_the_types_it_chose_before_unless_named():
    """Types priced for reach (fractional GPUs, non-NVIDIA accelerators, inference sizes of GPUs
    the planner already places on 8-GPU types) are never its own pick."""
    from trainstack_components.base import _by_preference
    for name in ("a3-highgpu-4g", "a2-megagpu-16g", "g6f.large", "Standard_NV6ads_A10_v5",
                 "inf2.48xlarge"):
        t = next(t for t in catalog.instance_types() if t.name == name)
        assert not t.auto_choice
        assert t not in _by_preference(t.cloud, t.gpu)


# Azure N-series in US regions, hand-read from skypilot-org/skypilot-catalog catalogs/v6/azure/
# vms.csv @098741e70562f65d7af1cceb81e33b284f742604 (columns Price, SpotPrice; a SpotPrice equal
# to Price is no spot discount and is left blank, as the catalog's other v6 rows do).
AZURE_US = [("Standard_NC4as_T4_v3", "eastus", 0.526, 0.062699),
            ("Standard_NC4as_T4_v3", "westus2", 0.526, 0.061595),
            ("Standard_NV36ads_A10_v5", "eastus", 3.2, 0.8),
            ("Standard_NC24ads_A100_v4", "eastus2", 3.673, 0.47749),
            ("Standard_NC24ads_A100_v4", "centralus", 4.15, 0.4565),
            ("Standard_NC40ads_H100_v5", "southcentralus", 8.38, None),
            ("Standard_NCC40ads_H100_v5", "eastus2", 6.98, 1.745),
            ("Standard_ND40rs_v2", "southcentralus", 26.438, 2.90818),
            ("Standard_NV72ads_A10_v5", "westus", 8.476, 2.119),
            ("Standard_NV4as_v4", "westus3", 0.233, 0.02563),
            ("Standard_NG8ads_V620_v1", "eastus2", 0.908, 0.227)]
# In no source with a price (SkyPilot v6 has an empty Price or no row; anycloud-sh/catalog
# @62ff0a98 lists NV4as_v4 and H200 v5 in other regions only, and has no NG32adms_V620_v1).
AZURE_US_ABSENT = [("Standard_NV4as_v4", "westus"), ("Standard_NG32adms_V620_v1", "eastus2"),
                   ("Standard_ND96isr_H200_v5", "eastus")]

# Region pairs the older sources left out, hand-read from github.com/anycloud-sh/catalog
# azure/vms.csv @62ff0a987e0c257a89235415d2877812fb1aaf29 (2026-05-20; columns Price, SpotPrice; a
# SpotPrice equal to Price is no discount and is left blank), e.g. the row
# "Standard_NV6ads_A10_v5,A10,0.167,6,55,A10,0.454,0.083899,eastus,V1,V2".
AZURE_ANYCLOUD = [("Standard_NV6ads_A10_v5", "eastus", 0.454, 0.083899),
                  ("Standard_NV12ads_A10_v5", "japaneast", 1.317, 0.243382),
                  ("Standard_NV18ads_A10_v5", "eastus", 1.6, 0.29568),
                  ("Standard_NC8ads_A10_v4", "southcentralus", 1.32, 0.243936),
                  ("Standard_ND96isr_H100_v5", "uksouth", 122.9, 22.71192),
                  ("Standard_ND96isr_H200_v5", "eastus2", 84.8, None),
                  ("Standard_ND96isr_MI300X_v5", "eastus2", 48.0, 8.8704),
                  ("Standard_NV4ads_V710_v5", "southcentralus", 0.4, 0.07392)]


@pytest.mark.parametrize("name, region, ondemand, spot", AZURE_US)
def test_azure_n_series_is_priced_in_the_us_regions_its_source_lists(name, region, ondemand,
                                                                      spot):
    row = catalog.price("azure", name, region)
    assert row is not None, (name, region)
    assert (row.ondemand_usd_hr, row.spot_usd_hr) == (ondemand, spot)
    assert "catalogs/v6/azure/vms.csv @098741e70562f65d7af1cceb81e33b284f742604" in row.source
    # the snapshot's commit date is not retrievable: the row names the day it was read
    assert row.as_of.startswith("2026-11-30 (date the snapshot was read")
    assert pack_catalog.price("azure", name, region).ondemand_usd_hr == ondemand


@pytest.mark.parametrize("name, region", AZURE_US_ABSENT)
def test_azure_us_pairs_without_a_source_price_are_not_guessed(name, region):
    assert catalog.price("azure", name, region) is None


@pytest.mark.parametrize("name, region, ondemand, spot", AZURE_ANYCLOUD)
def test_azure_types_are_priced_in_every_region_the_anycloud_snapshot_lists(name, region,
                                                                           ondemand, spot):
    row = catalog.price("azure", name, region)
    assert row is not None, (name, region)
    # tools/build_price_catalog.py writes 6 significant digits (22.71192 -> 22.7119)
    assert (row.ondemand_usd_hr, row.spot_usd_hr) == (ondemand, pytest.approx(spot, rel=1e-5))
    assert row.source == ("github.com/anycloud-sh/catalog azure/vms.csv "
                          "@62ff0a987e0c257a89235415d2877812fb1aaf29")
    assert row.as_of == "2026-05-20"
    got = pack_catalog.price("azure", name, region)
    assert (got.ondemand_usd_hr, got.spot_usd_hr, got.as_of) == (row.ondemand_usd_hr,
                                                                 row.spot_usd_hr, row.as_of)


def test_the_pack_tells_a_region_its_sources_do_not_offer_a_type_in_from_an_unknown_one():
    # gn7i-c8g1.2xlarge: sugarlxn alicloud vms.csv @003c56a7 lists it in these seven regions and
    # not in cn-shanghai, where it lists other GPU types (gn6i, gn7s, ...).
    listed = ("ap-northeast-1", "ap-southeast-1", "cn-beijing", "cn-hangzhou", "cn-shenzhen",
              "eu-central-1", "us-east-1")
    assert pack_catalog.offered_elsewhere("alicloud", "ecs.gn7i-c8g1.2xlarge",
                                          "cn-shanghai") == listed
    assert pack_catalog.offered_elsewhere("alicloud", "ecs.gn7i-c8g1.2xlarge", "cn-beijing") == ()
    # A region no row names (a typo) is not "not offered there": the old message stands.
    assert pack_catalog.offered_elsewhere("alicloud", "ecs.gn7i-c8g1.2xlarge", "cn-shangai") == ()
    assert pack_catalog.offered_elsewhere("aws", "p5e.48xlarge", "us-east-1") == ()


def test_a_spec_naming_an_unpriced_type_is_refused_with_the_reason():
    from trainstack_components.errors import SpecError
    with pytest.raises(SpecError) as err:
        catalog.instance_type("aws", "p5e.48xlarge")
    text = str(err.value)
    assert "listed by aws" in text and "no public price" in text
    assert "no public on-demand price: sold through EC2 Capacity Blocks" in text


# GCP A2 High 1-4 GPU sizes in the regions gcloud lists them in (Cyclenerd tools/
# machinetyperegion.csv @dac31281: the same ten as a2-highgpu-8g) that the 2025-03-06 rows left out,
# hand-read from Cyclenerd pricing.yml @fd66b26ff84fee5cdd94f341ea89206e76c06b99 (2026-07-30),
# compute.instance.<type>.cost.<region>.hour / hour_spot.
GCP_A2_REGIONS = [("a2-highgpu-1g", "us-west4", 3.934354926, 1.816835),
                  ("a2-highgpu-4g", "me-west1", 16.1628948, 9.69752)]


@pytest.mark.parametrize("name, region, ondemand, spot", GCP_A2_REGIONS)
def test_gcp_a2_high_small_sizes_are_priced_in_every_region_gcloud_lists(name, region, ondemand,
                                                                         spot):
    row = catalog.price("gcp", name, region)
    assert row is not None, (name, region)
    # tools/build_price_catalog.py writes 6 significant digits (3.934354926 -> 3.93435)
    assert (row.ondemand_usd_hr, row.spot_usd_hr) == (pytest.approx(ondemand, rel=1e-5),
                                                      pytest.approx(spot, rel=1e-5))
    assert "pricing.yml @fd66b26ff84fee5cdd94f341ea89206e76c06b99" in row.source
    assert row.as_of.startswith("2026-07-30")


# Alibaba pairs only the second snapshot of the same file lists, hand-read from github.com/sugarlxn/
# skypilot-catalog catalogs/v8/alicloud/vms.csv @b3e23ad8db7826fdd4b8009b5fe3e36012056653 (USD as the
# file gives it: CNY x 0.138 with a 40 GB ESSD system disk), e.g. the row "ecs.ebmgn7e.32xlarge,
# A100 80G,8,128,1024,A100 80G 80GB,43.0796946,13.36044654,eu-central-1,eu-central-1a,...".
ALIBABA_SECOND_SNAPSHOT = [("ecs.ebmgn7e.32xlarge", "eu-central-1", 43.0796946, 13.36044654),
                           ("ecs.gn7i-c32g1.8xlarge", "eu-central-1", 3.01127468, 0.9392358),
                           ("ecs.gn7i-4x.8xlarge", "us-east-1", 4.91074877, 1.52763847),
                           ("ecs.gn8is-8x.32xlarge", "us-east-1", 17.27835969, 3.11641122),
                           ("ecs.gn8is.2xlarge", "cn-shanghai", 2.00087642, 0.36966319),
                           ("ecs.gn6e-c12g1.24xlarge", "cn-shanghai", 21.804, 6.76723848),
                           ("ecs.gn7s-c8g1.2xlarge", "cn-hangzhou", 2.291766, 0.71844594)]


@pytest.mark.parametrize("name, region, ondemand, spot", ALIBABA_SECOND_SNAPSHOT)
def test_alibaba_pairs_the_second_snapshot_lists_are_priced(name, region, ondemand, spot):
    row = catalog.price("alibaba", name, region)
    assert row is not None, (name, region)
    assert (row.ondemand_usd_hr, row.spot_usd_hr) == (pytest.approx(ondemand, rel=1e-5),
                                                      pytest.approx(spot, rel=1e-5))
    assert "@b3e23ad8db7826fdd4b8009b5fe3e36012056653" in row.source
    assert catalog.unpriced_type("alibaba", name) is None


# A priced type the provider lists as sold in a region with no price found there is not "not
# offered" there: gcloud lists a3-megagpu-8g in these 13 regions (Cyclenerd tools/
# machinetyperegion.csv @dac31281), and no source prices the four below.
A3_MEGA_LISTED = ("asia-east1", "asia-northeast1", "asia-southeast1", "australia-southeast1",
                  "europe-north1", "europe-west1", "europe-west3", "europe-west4", "us-central1",
                  "us-east4", "us-east5", "us-west1", "us-west4")
A3_MEGA_UNPRICED = ("asia-east1", "europe-north1", "us-central1", "us-west1")


def _unpriced_region_rows() -> list[dict]:
    with open(ROOT / "components" / "catalog" / "unpriced_regions.csv", newline="") as fh:
        return list(csv.DictReader(fh))


def test_every_unpriced_region_record_is_a_type_priced_elsewhere_but_not_there():
    rows = _unpriced_region_rows()
    assert rows
    for row in rows:
        cloud, name, region = row["cloud"], row["instance_type"], row["region"]
        assert name in PUBLIC[cloud], (cloud, name)
        assert catalog.price(cloud, name, region) is None, (name, region)
        assert any(p.cloud == cloud and p.instance_type == name for p in catalog.prices())
        assert all(row[k].strip() for k in ("listed_by", "reason", "as_of")), row


def test_a3_mega_is_priced_or_recorded_in_every_region_gcloud_lists():
    priced = {p.region for p in catalog.prices() if p.instance_type == "a3-megagpu-8g"}
    recorded = {r["region"] for r in _unpriced_region_rows()
                if r["instance_type"] == "a3-megagpu-8g"}
    assert recorded == set(A3_MEGA_UNPRICED)
    assert priced | recorded == set(A3_MEGA_LISTED) and not priced & recorded


def _refusal(cloud: str, name: str, region: str) -> str:
    group = inventory.NodeGroup(res(TOKEN[cloud], "nodes"), None, name, 1, False, [""], region,
                                [name])
    est = pricing.estimate([group], [], [])
    assert est.lines == [] and len(est.missing) == 1, est.missing
    return est.missing[0]


def test_the_pack_tells_a_region_without_a_price_from_one_where_the_type_is_not_sold():
    why = _refusal("gcp", "a3-megagpu-8g", "us-central1")
    assert "a3-megagpu-8g in us-central1" in why and "has no catalog price" in why
    assert "listed as sold in us-central1" in why and "machinetyperegion.csv" in why
    assert "not offered" not in why and "priced in asia-northeast1" in why
    # anycloud-sh/catalog prices ND96isr H200 v5 in 28 Azure regions, not eastus (nor does any
    # older source): there it is not offered, and the refusal says so.
    why = _refusal("azure", "Standard_ND96isr_H200_v5", "eastus")
    assert "not offered in eastus per the catalog's sources" in why and "listed as sold" not in why
