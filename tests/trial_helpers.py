"""A trainstack project in a temporary folder for `trainstack trial`: the repository's spec and
its aws/gcp/azure stack files, the stand-in `pulumi` (tests/fake_pulumi.py) playing a backend
whose `up` answers the recorded capacity errors for chosen stacks, and bucket folders."""
from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path

from tests.checkout import PYTHONPATH as CHECKOUT_PATH
from tests.conftest import ROOT, install_fake_pulumi

AZURE_KEYS = ("  trainstack:sshPublicKey: ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIFakeKeyForTests t@x\n"
              "  trainstack:azureLustreProviderObjectId: 00000000-0000-0000-0000-000000000001\n")


GCP_PLACEHOLDERS = {"my-gcp-project": "acme-train-42",
                    '"000000-000000-000000"': '"01AB23-45CD67-89EF01"'}


def _without_gcp_placeholders(text: str) -> str:
    for placeholder, real in GCP_PLACEHOLDERS.items():
        text = text.replace(placeholder, real)
    return text


class TrialWorld:
    def __init__(self, tmp: Path, monkeypatch, clouds=("aws", "gcp", "azure"),
                 up_errors: dict | None = None):
        self.tmp, self.clouds = tmp, clouds
        self.project = tmp / "project"
        (self.project / "stacks").mkdir(parents=True)
        (self.project / "examples").mkdir()
        shutil.copy(ROOT / "Pulumi.yaml", self.project)
        shutil.copy(ROOT / "__main__.py", self.project)
        # The example with Google Cloud's placeholders replaced: `up` refuses a placeholder
        # project or billing account before the Pulumi CLI runs (Cloud.deploy_blockers).
        (self.project / "examples" / "cluster.yaml").write_text(
            _without_gcp_placeholders((ROOT / "examples" / "cluster.yaml").read_text()))
        for cloud in clouds:
            text = _without_gcp_placeholders(
                (ROOT / "stacks" / f"Pulumi.{cloud}.yaml").read_text())
            (self.project / "stacks" / f"Pulumi.{cloud}.yaml").write_text(
                text + (AZURE_KEYS if cloud == "azure" else ""))
        self.buckets = {c: tmp / "buckets" / c for c in clouds}
        for folder in self.buckets.values():
            folder.mkdir(parents=True)
        bin_dir = tmp / "bin"
        bin_dir.mkdir()
        install_fake_pulumi(bin_dir)
        self.stacks_file = tmp / "stacks.json"
        self.stacks_file.write_text("{}")
        self.env = {
            "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
            "FAKE_PULUMI_LOG": str(tmp / "pulumi.jsonl"),
            "FAKE_PULUMI_STACKS": str(self.stacks_file),
            "FAKE_PULUMI_UP_OUTPUTS": json.dumps({
                f"trial-{c}": {"bucket_url": f"file://{self.buckets[c]}",
                               "bucket_name": f"{c}-trial-data"} for c in clouds}),
            "FAKE_PULUMI_UP_ERRORS": json.dumps(up_errors or {}),
            "PULUMI_CONFIG_PASSPHRASE": "test-passphrase",
            "AWS_PROFILE": "test", "GOOGLE_CREDENTIALS": "{}", "ARM_USE_MSI": "true",
        }
        for key, value in self.env.items():
            monkeypatch.setenv(key, value)
        for var in ("PULUMI_BACKEND_URL", "PULUMI_ROOT", "FAKE_PULUMI_UP_SLEEP",
                    "FAKE_PULUMI_DESTROY_SLEEP", "TRAINSTACK_PROJECT"):
            monkeypatch.delenv(var, raising=False)

    def stacks(self) -> dict:
        return json.loads(self.stacks_file.read_text())

    def still_billing(self) -> dict:
        """Every stack whose state still holds a resource other than its provider."""
        return {name: [r["type"] for r in (s.get("state") or {}).get("resources", [])
                       if not r["type"].startswith("pulumi:providers:")]
                for name, s in self.stacks().items()
                if [r for r in (s.get("state") or {}).get("resources", [])
                    if not r["type"].startswith("pulumi:providers:")]}

    def journal(self) -> dict:
        path = self.project / ".trainstack" / "trial" / "journal.json"
        return json.loads(path.read_text()) if path.is_file() else {}

    def bench_args(self) -> list[str]:
        fs = self.tmp / "node-fs"
        (fs / "lustre").mkdir(parents=True, exist_ok=True)
        (fs / "scratch").mkdir(parents=True, exist_ok=True)
        return ["--nodes", "1", "--model", "tiny", "--steps", "3", "--checkpoint-mib", "1",
                "--allreduce-mib", "1", "--lustre", str(fs / "lustre"),
                "--scratch", str(fs / "scratch"), "--bench-timeout", "600",
                "--health-timeout", "2", "--poll", "0.2", "--max-moves", "2",
                "--skip-credential-check", "--out-dir", str(self.tmp / "results")]

    def command(self, *args: str) -> list[str]:
        return [sys.executable, "-m", "trainstack", "--project", str(self.project), "trial",
                *args]

    def subprocess_env(self, **extra: str) -> dict[str, str]:
        return {**os.environ, **self.env, "PYTHONPATH": CHECKOUT_PATH, "OMP_NUM_THREADS": "1",
                **extra}
