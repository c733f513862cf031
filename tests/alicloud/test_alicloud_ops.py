"""Alibaba Cloud operations: `trainstack connect` through Cloud Assistant (a stand-in `aliyun`
and a stand-in `pulumi` answering the stack's outputs; PATH holds only the stand-ins) and
`trainstack status` reading the OSS bucket's records through fsspec (file:// here)."""
from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from tests.conftest import only_stand_ins_on_path, stand_in_cli
from trainstack.measure import status
from trainstack.cli.app import app

runner = CliRunner()

ALIYUN = r"""#!/bin/bash
echo "$*" >> "$FAKE_LOG"
if [ -n "${FAKE_CLI_FAIL:-}" ]; then echo "ERROR: InvalidAccessKeyId.NotFound" >&2; exit 1; fi
case "$*" in
  "ecs DescribeInstances"*)
    echo '{"Instances": {"Instance": [{"InstanceId": "i-node1"}, {"InstanceId": "i-node0"}]}}' ;;
esac
"""
OUTPUTS = {"bucket_name": "llm-finetune-data", "node_group": "ds-placement",
           "node_ids": ["i-node0", "i-node1"]}


@pytest.fixture
def stand_ins(monkeypatch, tmp_path):
    bin_dir = only_stand_ins_on_path(
        monkeypatch, tmp_path, stacks={"alicloud": {"outputs": OUTPUTS}},
        unset=("ALICLOUD_ACCESS_KEY", "ALICLOUD_SECRET_KEY", "ALIBABA_CLOUD_ACCESS_KEY_ID",
               "ALIBABA_CLOUD_ACCESS_KEY_SECRET"))

    def add(name: str, body: str) -> None:
        stand_in_cli(bin_dir, name, body)
    add.log = tmp_path / "calls.log"
    return add


@pytest.fixture
def credentials(monkeypatch):
    monkeypatch.setenv("ALIBABA_CLOUD_ACCESS_KEY_ID", "id")
    monkeypatch.setenv("ALIBABA_CLOUD_ACCESS_KEY_SECRET", "secret")


@pytest.mark.parametrize("node, instance", [(0, "i-node0"), (1, "i-node1")])
def test_connect_print_is_the_exact_cloud_assistant_command(stand_ins, credentials, node,
                                                            instance):
    stand_ins("aliyun", ALIYUN)
    result = runner.invoke(app, ["connect", "--stack", "alicloud", "--node", str(node),
                                 "--print"])
    assert result.exit_code == 0, result.output
    assert result.output.strip() == ("aliyun ecs StartTerminalSession --RegionId cn-beijing "
                                     f"--InstanceId.1 {instance}")
    calls = stand_ins.log.read_text()
    assert ("ecs DescribeInstances --RegionId cn-beijing --InstanceIds "
            '["i-node0", "i-node1"] --Status Running') in calls


def test_connect_only_counts_running_nodes(stand_ins, credentials):
    stand_ins("aliyun", ALIYUN.replace('{"InstanceId": "i-node0"}', '{"InstanceId": "i-other"}'))
    result = runner.invoke(app, ["connect", "--stack", "alicloud", "--node", "1", "--print"])
    assert result.exit_code == 2
    assert "--node" in result.output and "1 running node(s)" in result.output


def test_connect_without_the_aliyun_cli_exits_2_in_one_line(stand_ins, credentials):
    result = runner.invoke(app, ["connect", "--stack", "alicloud", "--print"])
    assert result.exit_code == 2
    assert "aliyun CLI" in result.output and "aliyun configure" in result.output
    assert "Traceback" not in result.output


def test_connect_without_credentials_exits_2_naming_them(stand_ins):
    stand_ins("aliyun", ALIYUN)
    result = runner.invoke(app, ["connect", "--stack", "alicloud", "--print"])
    assert result.exit_code == 2 and "alicloud credentials" in result.output
    assert not stand_ins.log.exists()  # nothing asked of the cloud


def test_connect_with_rejected_credentials_exits_2(stand_ins, credentials, monkeypatch):
    stand_ins("aliyun", ALIYUN)
    monkeypatch.setenv("FAKE_CLI_FAIL", "1")
    result = runner.invoke(app, ["connect", "--stack", "alicloud", "--print"])
    assert result.exit_code == 2 and "InvalidAccessKeyId" in result.output


def test_status_reads_the_oss_bucket_by_its_scheme(tmp_path):
    assert status.bucket_url("alicloud", "llm-finetune-data") == "oss://llm-finetune-data"
    records = tmp_path / "status"
    records.mkdir()
    for rank in (1, 0):
        (records / f"llm-finetune-node-{rank}.json").write_text(json.dumps(
            {"node": f"llm-finetune-node-{rank}", "node_rank": rank, "ok": rank == 0,
             "steps": {"lustre": 0, "fabric": rank}}))
    found = status.read_records(f"file://{tmp_path}")
    assert [h.node for h in found] == ["llm-finetune-node-0", "llm-finetune-node-1"]
    assert found[1].failed_steps == ["fabric"]
    assert status.summary(found, 2) == ("1 of 2 node(s) ready", False)


def test_status_without_ossfs_names_the_package(monkeypatch):
    import fsspec.core

    def missing(url, **kwargs):
        raise ImportError("Install ossfs to access Alibaba Cloud OSS")
    monkeypatch.setattr(fsspec.core, "url_to_fs", missing)
    with pytest.raises(Exception) as failed:
        status.read_records("oss://llm-finetune-data")
    assert "pip install ossfs" in str(failed.value)
