"""Azure planning rules, without the mock engine: address plan, Managed Lustre sizes, capacity,
budget notifications, names and the operations commands."""
import datetime as dt
import ipaddress

import sys

import pytest

from trainstack_components.azure import planning
from trainstack_components.errors import SpecError
from trainstack_components.spec import CapacitySpec

RESERVATION = ("/subscriptions/0000/resourceGroups/gpu/providers/Microsoft.Compute/"
               "capacityReservationGroups/h100")


@pytest.mark.parametrize("tib, prefix", [(4, 27), (16, 27), (20, 26), (40, 26), (44, 25),
                                          (92, 25), (96, 24), (196, 24), (200, 23), (400, 23)])
def test_filesystem_subnet_is_sized_for_the_capacity(tib, prefix):
    assert planning.fs_subnet_prefix(tib) == prefix
    assert planning.address_plan(tib).filesystem.endswith(f"/{prefix}")


def test_more_than_400_tib_has_no_documented_subnet_size():
    with pytest.raises(SpecError) as err:
        planning.fs_subnet_prefix(401)
    assert err.value.field == "filesystem.capacity_gib"


@pytest.mark.parametrize("tib", [8, 128, 400])
def test_address_plan_is_clear_of_the_infiniband_range_and_nests(tib):
    plan = planning.address_plan(tib)
    vnet = ipaddress.ip_network(plan.vnet)
    assert not vnet.overlaps(ipaddress.ip_network("172.16.0.0/16"))
    nets = [ipaddress.ip_network(c) for c in (plan.nodes, plan.filesystem, plan.bastion)]
    assert all(n.subnet_of(vnet) for n in nets)
    assert not any(a.overlaps(b) for i, a in enumerate(nets) for b in nets[i + 1:])
    assert ipaddress.ip_network(plan.bastion).prefixlen <= 26  # AzureBastionSubnet minimum
    # Azure keeps 5 addresses per subnet; the node subnet holds a full placement group.
    assert ipaddress.ip_network(plan.nodes).num_addresses - 5 >= planning.SINGLE_PLACEMENT_GROUP_LIMIT


def test_an_overlapping_plan_is_refused():
    bad = planning.AddressPlan("172.16.0.0/12", "172.16.0.0/24", "172.16.1.0/27", "172.16.2.0/26")
    with pytest.raises(ValueError, match="172.16.0.0/16"):
        planning.check_clear_of_infiniband(bad)


@pytest.mark.parametrize("asked, sku", [(40, "AMLFS-Durable-Premium-40"),
                                        (125, "AMLFS-Durable-Premium-125"),
                                        (200, "AMLFS-Durable-Premium-250"),
                                        (250, "AMLFS-Durable-Premium-250"),
                                        (500, "AMLFS-Durable-Premium-500"),
                                        (1000, "AMLFS-Durable-Premium-500")])
def test_throughput_maps_to_the_next_durable_premium_sku(asked, sku):
    assert planning.lustre_sku(asked).name == sku


@pytest.mark.parametrize("gib, mbps, tib", [(4800, 250, 8), (8192, 250, 8), (8193, 250, 16),
                                            (1, 500, 4), (20_000, 125, 32), (1, 40, 48),
                                            (100_000, 40, 144)])
def test_capacity_rounds_up_to_the_skus_step(gib, mbps, tib):
    sku = planning.lustre_sku(mbps)
    assert planning.lustre_capacity_tib(gib, sku) == tib
    assert tib % sku.step_tib == 0


def test_capacity_above_the_skus_maximum_is_an_error_naming_the_way_out():
    with pytest.raises(SpecError) as err:
        planning.lustre_capacity_tib(129 * 1024, planning.lustre_sku(250))
    assert err.value.field == "filesystem.capacity_gib" and "throughput_mbps_per_tib: 40" in \
        err.value.fix


def test_more_nodes_than_a_single_placement_group_holds_is_an_error():
    assert planning.check_nodes(100) == 100
    with pytest.raises(SpecError) as err:
        planning.check_nodes(101)
    assert err.value.field == "nodes" and "single placement group" in err.value.problem


@pytest.mark.parametrize("kind", ["capacity_block", "flex_start"])
def test_capacity_types_azure_does_not_sell_name_what_it_offers(kind):
    cap = CapacitySpec(type=kind, reservation="r" if kind == "capacity_block" else None)
    with pytest.raises(SpecError) as err:
        planning.check_capacity(cap, "fastest")
    assert err.value.field == "clouds.azure.capacity.type"
    assert "on_demand" in err.value.fix and "spot" in err.value.fix and "reservation" in \
        err.value.fix


def test_a_reservation_needs_a_group_id():
    with pytest.raises(SpecError) as err:
        planning.check_capacity(CapacitySpec(type="reservation", reservation="h100"), "tcp")
    assert err.value.field == "clouds.azure.capacity.reservation"


def test_a_reservation_and_infiniband_exclude_each_other():
    cap = CapacitySpec(type="reservation", reservation=RESERVATION)
    assert planning.check_capacity(cap, "tcp") is cap
    for interconnect in ("fastest", "rdma"):
        with pytest.raises(SpecError) as err:
            planning.check_capacity(cap, interconnect)
        assert "singlePlacementGroup=false" in err.value.problem and "tcp" in err.value.fix


def test_budget_notifications_are_keyed_per_threshold():
    notes = planning.budget_notifications([100, 50, 80, 12.5], ["a@example.com"])
    assert list(notes) == ["actual-12_5-percent", "actual-50-percent", "actual-80-percent",
                           "actual-100-percent"]
    assert [n["threshold"] for n in notes.values()] == [12.5, 50.0, 80.0, 100.0]
    assert all(n["contact_emails"] == ["a@example.com"] for n in notes.values())


def test_more_than_five_budget_notifications_is_an_error():
    with pytest.raises(SpecError) as err:
        planning.budget_notifications([10, 20, 30, 40, 50, 60], ["a@example.com"])
    assert err.value.field == "budget.alert_percents"


def test_budget_starts_on_the_first_of_the_month():
    assert planning.budget_start(today=dt.date(2026, 12, 17)) == "2026-12-01T00:00:00Z"
    # The recorded first deploy wins over the clock (issue 21: the start never moves).
    assert planning.budget_start("2026-11-20T08:00:00Z", dt.date(2027, 2, 3)) == \
        "2026-11-01T00:00:00Z"
    assert planning.budget_start().endswith("-01T00:00:00Z")


def test_storage_account_names_follow_azures_rule_and_differ_per_stack():
    names = {planning.storage_account_name("LLM_Finetune-with-a-very-long-name", s)
             for s in ("dev", "prod")}
    assert len(names) == 2
    for n in names:
        assert 3 <= len(n) <= 24 and n.isalnum() and n == n.lower()


@pytest.mark.parametrize("zone", ["0", "4", "eastus-1", "a"])
def test_zones_are_numbered(zone):
    with pytest.raises(SpecError) as err:
        planning.check_zone(zone, "eastus")
    assert err.value.field == "clouds.azure.zone"


def test_mount_command_is_managed_lustres():
    assert planning.mount_command("10.40.8.5") == \
        "sudo mount -t lustre -o noatime,flock 10.40.8.5@tcp:/lustrefs /lustre"


def _archive_answers(tmp_path, answers):
    """A stand-in az: `archive` is logged, each `show` answers the next "state<TAB>started"
    line of `answers` (the last one repeats), as `-o tsv` prints the queried pair."""
    import json
    (tmp_path / "answers.json").write_text(json.dumps(answers))
    az = tmp_path / "az"
    az.write_text(f"""#!{sys.executable} -S
import json, os, sys
open(os.environ["LOG"], "a").write(" ".join(sys.argv[1:]) + "\\n")
if sys.argv[2] == "show":
    answers = json.load(open({str(tmp_path / "answers.json")!r}))
    n = sum(1 for line in open(os.environ["LOG"]) if " show " in line)
    answer = answers[min(n, len(answers)) - 1]
    print(answer if "lastStartedTime" in " ".join(sys.argv) else answer.split("\\t")[0])
""")
    az.chmod(0o755)


def _at(minutes):
    from datetime import datetime, timedelta, timezone
    return (datetime.now(timezone.utc) + timedelta(minutes=minutes)).strftime(
        "%Y-%m-%dT%H:%M:%S.0000000Z")


def test_the_archive_command_waits_until_azure_reports_it_completed(tmp_path):
    import subprocess
    command = planning.archive_command("fs1", "rg1")
    assert "az amlfs archive --name fs1 --resource-group rg1 --filesystem-path /" in command
    fast = command.replace("sleep 30", "sleep 0")
    for end, code in (("Completed", 0), ("Failed", 1)):
        log = tmp_path / f"{end}.log"
        _archive_answers(tmp_path, [f"InProgress\t{_at(1)}", f"{end}\t{_at(1)}"])
        env = {"PATH": f"{tmp_path}:/usr/bin:/bin", "LOG": str(log)}
        assert subprocess.run(["bash", "-c", fast], env=env).returncode == code
        calls = log.read_text().splitlines()
        assert calls[0] == "amlfs archive --name fs1 --resource-group rg1 --filesystem-path /"
        assert calls[1:] == ["amlfs show --name fs1 --resource-group rg1 --query "
                             "hsm.archiveStatus[0].status.[state,lastStartedTime] -o tsv"] * 2


def test_the_archive_command_ignores_the_previous_archives_completed(tmp_path):
    """Issue 34: the status still shows yesterday's archive Completed; the new one never
    starts within the wait: exit 1, never 0."""
    import subprocess
    fast = planning.archive_command("fs1", "rg1").replace("sleep 30", "sleep 0")
    _archive_answers(tmp_path, [f"Completed\t{_at(-24 * 60)}"])
    env = {"PATH": f"{tmp_path}:/usr/bin:/bin", "LOG": str(tmp_path / "old.log")}
    assert subprocess.run(["bash", "-c", fast], env=env, timeout=120).returncode == 1
    shows = [c for c in (tmp_path / "old.log").read_text().splitlines() if " show " in c]
    assert len(shows) == planning.ARCHIVE_POLLS


def test_the_bucket_url_is_adlfs_form():
    assert planning.abfs_url("data", "tsx1", "heartbeats") == \
        "abfs://data@tsx1.dfs.core.windows.net/heartbeats"
