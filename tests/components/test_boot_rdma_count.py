"""The health step's and the fabric step's RDMA device count (found by the node box, issue 31):
on a node with no /sys/class/infiniband at all, `find` fails, and under the steps' `set -euo
pipefail` the count ended the step with no message and no health record. The count must print 0
and let the step say what it found."""
from __future__ import annotations

import re
import subprocess

import pytest

from tests.boot_helpers import step_text, user_data


def _alicloud_user_data(shape: str) -> str:
    from tests.box.cases import alicloud_plan
    from tests.alicloud.test_alicloud_boot import INSTANCE
    from trainstack_components.alicloud.boot import decode_ecs_user_data
    return decode_ecs_user_data(alicloud_plan(shape).of_type(INSTANCE)[0].inputs["userData"])


@pytest.mark.parametrize("family", ["p5", "a3-ultra", "ebmgn8v", "sccgn7ex"])
def test_the_rdma_count_prints_zero_when_the_node_has_no_rdma_devices(family, tmp_path):
    text = _alicloud_user_data(family) if family in ("ebmgn8v", "sccgn7ex") else user_data(family)
    health = step_text(text, "health")
    count = re.search(r"rdma_device_count\(\) \{\n(.*?)\n\}", health, re.S).group(1)
    missing = tmp_path / "no-such-sysfs" / "infiniband"
    script = ("set -euo pipefail\n" + count.replace("/sys/class/infiniband", str(missing))
              + "\necho reached\n")
    ran = subprocess.run(["bash", "-c", script], capture_output=True, text=True)
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.split() == ["0", "reached"]
