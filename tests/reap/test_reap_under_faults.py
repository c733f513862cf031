"""Issue 34: the reaper under every fault, each through the real CLI (`trainstack reap`) with the
stand-in `pulumi` and stand-in cloud CLIs (tests/reap/stand_ins.py) on PATH and the real cloud and
guard code; each test was written to fail on the code before the fix."""
from __future__ import annotations

import json
import os

import fsspec
import pytest
from typer.testing import CliRunner

from tests.conftest import stand_in_cli
from tests.reap.stand_ins import ALIYUN
from tests.reap_helpers import beat, marked, put_beats, stack, write_stacks
from trainstack.cli.app import app

runner = CliRunner()


def audit_lines(path):
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


class World:
    """Stacks in the stand-in pulumi, heartbeats in a file:// bucket, stand-in clouds on PATH."""

    def __init__(self, tmp_path, monkeypatch, calls):
        self.tmp, self.mp, self.calls = tmp_path, monkeypatch, calls
        self.bin = tmp_path / "bin"
        self.bucket = tmp_path / "bucket"
        self.fs = fsspec.filesystem("file", auto_mkdir=True)
        self.stacks: dict = {}
        self.audit = tmp_path / "audit.jsonl"

    def root(self, name):
        return f"file://{self.bucket}/{name}/heartbeats"

    def add(self, name, outputs, *beats, **extra):
        self.stacks[name] = stack(outputs, **extra)
        write_stacks(self.tmp / "stacks.json", self.stacks)
        self.mp.setenv("FAKE_PULUMI_STACKS", str(self.tmp / "stacks.json"))
        put_beats(self.fs, f"{self.bucket}/{name}/heartbeats", *beats)

    def reap(self, *extra):
        return runner.invoke(app, ["reap", "--yes", "--audit-log", str(self.audit), *extra])

    def destroyed(self):
        return [c["args"][c["args"].index("--stack") + 1] for c in self.calls()
                if c["args"][0] == "destroy"]


@pytest.fixture
def world(fake_pulumi, tmp_path, monkeypatch):
    return World(tmp_path, monkeypatch, fake_pulumi)


def alibaba(world, count, busy=(), status="Running"):
    """An Alibaba stack of `count` nodes (node-0 ...) answered by the stand-in `aliyun`."""
    stand_in_cli(world.bin, "aliyun", ALIYUN)
    instances = [{"InstanceId": f"i-{n:04d}", "HostName": f"node-{n}", "Status": status}
                 for n in range(count)]
    path = world.tmp / "instances.json"
    path.write_text(json.dumps(instances))
    world.mp.setenv("FAKE_ALIYUN_INSTANCES", str(path))
    outputs = marked(cloud="alicloud", heartbeat_url=world.root("ali"), node_group="pg-1",
                     node_ids=[i["InstanceId"] for i in instances], region="cn-hangzhou",
                     filesystem_id="cpfs-0001", filesystem_export_command="true")
    world.add("ali", outputs, *[beat(f"node-{n}", 0 if n in busy else 180) for n in range(count)])
    return path


# -- 1. every page of a listing ---------------------------------------------------------------

@pytest.mark.parametrize("count, busy", [(11, 10), (150, 130)])
def test_a_busy_alibaba_node_past_the_first_page_keeps_the_stack(world, count, busy):
    """DescribeInstances answers 10 instances a page by default (100 at most, and 100 ids a
    call): a busy node on a later page is a member, and the stack is kept."""
    alibaba(world, count, busy=(busy,))
    result = world.reap()
    assert result.exit_code == 0, result.output
    assert f"ali: keep - busy within the grace period: node-{busy}" in result.output
    assert world.destroyed() == []
    members = audit_lines(world.audit)[-1]["evidence"]["members"]
    assert len(members) == count


def test_an_idle_alibaba_stack_of_many_nodes_stops_every_node(world):
    path = alibaba(world, 150)
    result = world.reap()
    assert result.exit_code == 0 and world.destroyed() == ["ali"], result.output
    assert {i["Status"] for i in json.loads(path.read_text())} == {"Stopped"}
