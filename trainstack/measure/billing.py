"""What keeps billing after each kind of stop, per cloud (docs/billing-after-stop.md is the
table; `trainstack status` prints this stack's line), and what a destroy does not carry into
the bucket. A stop that leaves the filesystem and the network up is cheaper, not free."""
from __future__ import annotations

# Resources a stack keeps after its nodes are stopped (budget stop, lifetime deadline, the
# reaper's scale-down, spot reclaim) - they end only with `trainstack destroy` / the reaper.
AFTER_STOP = {
    "aws": "FSx for Lustre (per provisioned GB-month), the NAT gateway (hourly and per GB) and "
           "its Elastic IP (public IPv4, hourly), the S3 bucket",
    "gcp": "Managed Lustre (per provisioned GiB-hour), the Cloud Storage bucket, the Cloud "
           "Scheduler job(s); Cloud NAT bills per VM using it, so nothing once the group is at 0",
    "azure": "Azure Managed Lustre (per provisioned TiB-hour), Azure Bastion Standard (hourly, "
             "used or not) and its public IP, the NAT gateway (hourly and per GB) and its public "
             "IP, the storage account",
    "alicloud": "CPFS, the NAT gateway and its EIP, the OSS bucket; a released node's disks go "
                "with it, a stopped (StopCharging) node still bills its disks",
}
AFTER_DESTROY = "only the bucket (bucket.retain_on_destroy: true), billed per GB-month"


def export_scope(cloud: str, outputs: dict) -> str:
    """What the reaper's export does NOT put into the bucket before a destroy."""
    if cloud == "aws":
        linked = "/" + str(outputs.get("filesystem_bucket_path") or "/bucket").strip("/")
        if linked == "/":
            return ("the whole filesystem is exported (the FSx data repository association "
                    "links / to the bucket's data/ prefix)")
        return (f"only {'/lustre' + linked} (the FSx data repository association, {linked} on "
                "the filesystem) is exported to the bucket; files elsewhere under /lustre are "
                "deleted with the filesystem")
    if cloud == "azure":
        return "the whole filesystem is archived (Lustre HSM archive of /)"
    if cloud in ("gcp", "alicloud"):
        return "the whole filesystem is exported (the stack's filesystem_export_command)"
    return "unknown"


def status_line(cloud: str, outputs: dict) -> str:
    still = AFTER_STOP.get(cloud, "unknown for this cloud")
    return (f"after a stop still billing: {still}. After a reap/destroy: {AFTER_DESTROY}; "
            f"{export_scope(cloud, outputs)} (docs/billing-after-stop.md)")
