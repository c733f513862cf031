"""Drive the policy pack over gRPC the way `pulumi preview --policy-pack policies` does, with no CLI.

What the engine does (pulumi-notes §4.2-4.4) and this harness copies:
- start `<virtualenv>/bin/python -u -m pulumi.policy <address> .` with the pack directory as the
  working directory (the virtualenv named in PulumiPolicy.yaml, resolved against that directory),
  with PULUMI_PROJECT / PULUMI_STACK / PULUMI_ORGANIZATION / PULUMI_DRY_RUN / PULUMI_CONFIG set;
- read the port from the first line of stdout;
- ConfigureStack, GetAnalyzerInfo, then Configure with the config the CLI reconciles: each
  policy's advertised enforcement level and schema defaults, then `all`, then per-policy entries,
  validated with JSON Schema; the enforcement level is ALWAYS sent (proto 0 means advisory, so a
  config without it would silently downgrade a mandatory policy);
- Analyze for every resource (its inputs), then AnalyzeStack once with all of them.
"""
from __future__ import annotations

import copy
import json
import os
import select
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping, Optional

import grpc
import jsonschema
import yaml
from google.protobuf import empty_pb2, json_format, struct_pb2
from pulumi.runtime.proto import analyzer_pb2 as apb
from pulumi.runtime.proto import analyzer_pb2_grpc as agrpc

ROOT = Path(__file__).resolve().parents[1]
PACK_DIR = ROOT / "policies"
PROJECT = "trainstack"


def _struct(value: Mapping[str, Any]) -> struct_pb2.Struct:
    s = struct_pb2.Struct()
    s.update(json.loads(json.dumps(value)))
    return s


def pack_python(pack_dir: Path = PACK_DIR) -> str:
    """The interpreter the engine would start: PulumiPolicy.yaml's virtualenv, else python3."""
    runtime = (yaml.safe_load((pack_dir / "PulumiPolicy.yaml").read_text()) or {}).get("runtime")
    venv = runtime.get("options", {}).get("virtualenv") if isinstance(runtime, dict) else None
    if venv:
        python = (pack_dir / venv).resolve() / "bin" / "python"
        if python.is_file():
            return str(python)
    return sys.executable


def engine_value(value: Any) -> Any:
    """A view's value as the engine sends it: UNKNOWN becomes the engine's unknown sentinel."""
    from trainstack_policies.model import UNKNOWN, UNKNOWN_STRING_SENTINEL
    if value is UNKNOWN:
        return UNKNOWN_STRING_SENTINEL
    if isinstance(value, dict):
        return {k: engine_value(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [engine_value(v) for v in value]
    return value


def provider_for(cloud: str, props: Optional[Mapping[str, Any]] = None,
                 name: str = "default") -> apb.AnalyzerProviderResource:
    """The provider resource the engine attaches to every request (its inputs as properties)."""
    type_ = f"pulumi:providers:{cloud}"
    return apb.AnalyzerProviderResource(
        type=type_, name=name, urn=f"urn:pulumi:test::{PROJECT}::{type_}::{name}",
        properties=_struct(engine_value(dict(props or {}))))


@dataclass(frozen=True)
class Diagnostic:
    policy: str
    level: str            # "advisory" | "mandatory" | ...
    urn: str
    message: str          # the report text, without the description line the pack prepends
    description: str


class PolicyPackProcess:
    def __init__(self, stack: str = "test", config: Optional[dict] = None, timeout: float = 60,
                 pack_dir: Path = PACK_DIR, python: Optional[str] = None, isolated: bool = False):
        env = dict(os.environ, PULUMI_PROJECT=PROJECT, PULUMI_STACK=stack,
                   PULUMI_ORGANIZATION="organization", PULUMI_DRY_RUN="true",
                   PULUMI_CONFIG=json.dumps(config or {}))
        if isolated:   # as the CLI starts a published pack: nothing of this checkout on the path
            env.pop("PYTHONPATH", None)
        python = python or pack_python(pack_dir)
        env["PATH"] = str(Path(python).parent) + os.pathsep + env.get("PATH", "")
        self.proc = subprocess.Popen([python, "-u", "-m", "pulumi.policy", "127.0.0.1:0", "."],
                                     cwd=pack_dir, env=env, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE)
        self.first_line = self._first_line(timeout)
        self.port = int(self.first_line)   # the engine's contract: the first line is the port
        self.channel = grpc.insecure_channel(f"127.0.0.1:{self.port}", options=[
            ("grpc.max_receive_message_length", 400 << 20)])
        grpc.channel_ready_future(self.channel).result(timeout=timeout)
        self.stub = agrpc.AnalyzerStub(self.channel)
        self.stub.ConfigureStack(apb.AnalyzerStackConfigureRequest(
            stack=stack, project=PROJECT, organization="organization", dry_run=True))
        self.info = self.stub.GetAnalyzerInfo(empty_pb2.Empty())
        self._schemas: Optional[tuple[dict[str, dict], dict[str, Any]]] = None
        self._valid_configs: set[str] = set()

    def _first_line(self, timeout: float) -> bytes:
        ready, _, _ = select.select([self.proc.stdout], [], [], timeout)
        line = self.proc.stdout.readline() if ready else b""
        if not line:
            self.proc.kill()
            raise RuntimeError("the policy pack wrote no port: "
                               + self.proc.stderr.read().decode(errors="replace")[-2000:])
        return line

    def close(self) -> None:
        self.channel.close()
        self.proc.terminate()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.proc.stdout.close()
        self.proc.stderr.close()

    # -- configuration, as the CLI reconciles it (pkg/resource/analyzer/config.go) -------------

    def _policy_schemas(self) -> tuple[dict[str, dict], dict[str, Any]]:
        """Each policy's defaults ({"enforcementLevel", **schema defaults}) and the validator of
        its config schema, read from GetAnalyzerInfo once per process."""
        if self._schemas is None:
            defaults: dict[str, dict] = {}
            validators: dict[str, Any] = {}
            for p in self.info.policies:
                props = json_format.MessageToDict(p.configSchema.properties)
                validators[p.name] = jsonschema.Draft7Validator({
                    "type": "object", **({"properties": props} if props else {}),
                    **({"required": list(p.configSchema.required)} if p.configSchema.required
                       else {})})
                defaults[p.name] = {"enforcementLevel": apb.EnforcementLevel.Name(
                    p.enforcementLevel).lower(), **{k: v["default"] for k, v in props.items()
                                                    if "default" in v}}
            self._schemas = (defaults, validators)
        return self._schemas

    def cli_config(self, given: Optional[Mapping[str, Any]] = None) -> dict[str, dict]:
        """{policy: {"enforcementLevel": level, **properties}} from the pack's own metadata."""
        defaults, validators = self._policy_schemas()
        result = copy.deepcopy(defaults)
        given = dict(given or {})
        if isinstance(given.get("all"), str):
            for value in result.values():
                value["enforcementLevel"] = given["all"]
        for name, value in given.items():
            if name == "all" or name not in result:
                continue
            if isinstance(value, str):
                result[name]["enforcementLevel"] = value
            else:
                result[name].update(copy.deepcopy(value))
        key = json.dumps(result, sort_keys=True)
        if key not in self._valid_configs:   # most cases send one of a few configs
            for name, validator in validators.items():
                validator.validate({k: v for k, v in result[name].items()
                                    if k != "enforcementLevel"})
            self._valid_configs.add(key)
        return result

    def configure(self, given: Optional[Mapping[str, Any]] = None) -> dict[str, dict]:
        config = self.cli_config(given)
        self.send_config(config)
        return config

    def send_config(self, config: Mapping[str, Mapping[str, Any]]) -> None:
        """Configure with `config` as given ({policy: {"enforcementLevel": ..., **props}}),
        without cli_config's schema check: how a test sends what the CLI would not (a typo)."""
        self.stub.Configure(apb.ConfigureAnalyzerRequest(policyConfig={
            name: apb.PolicyConfig(
                enforcementLevel=apb.EnforcementLevel.Value(value["enforcementLevel"].upper()),
                properties=_struct({k: v for k, v in value.items() if k != "enforcementLevel"}))
            for name, value in config.items()}))

    # -- analysis ------------------------------------------------------------------------------

    def _diagnostics(self, response) -> list[Diagnostic]:
        out = []
        for d in response.diagnostics:
            message = d.message
            if message.startswith(d.description + "\n"):
                message = message[len(d.description) + 1:]
            out.append(Diagnostic(d.policyName, apb.EnforcementLevel.Name(d.enforcementLevel)
                                  .lower(), d.urn, message, d.description))
        return out

    def analyze(self, type_: str, name: str, urn: str, props: Mapping[str, Any],
                protect: bool = False,
                provider: Optional[apb.AnalyzerProviderResource] = None) -> list[Diagnostic]:
        request = apb.AnalyzeRequest(type=type_, name=name, urn=urn, properties=_struct(props),
                                     options=apb.AnalyzerResourceOptions(protect=protect))
        if provider is not None:
            request.provider.CopyFrom(provider)
        # The engine's two passes per resource (step_generator.go): Remediate, then Analyze.
        remediated = self.stub.Remediate(request)
        assert not any(r.HasField("properties") for r in remediated.remediations), \
            "the pack never rewrites a resource"
        notes = [Diagnostic(r.policyName, "advisory", urn, r.diagnostic, r.description)
                 for r in remediated.remediations if r.diagnostic]
        return notes + self._diagnostics(self.stub.Analyze(request))

    def analyze_views(self, resources: list, provider_props: Optional[Mapping[str, Any]] = None
                      ) -> list[Diagnostic]:
        """Analyze + AnalyzeStack on hand-built `trainstack_policies.model.Resource` views, as the engine
        sends an ordinary Pulumi program's resources: inputs (UNKNOWN as the engine's sentinel),
        property dependencies by URN, the protect option, and each resource's provider (its own
        `provider` props, else `provider_props`, else the region it names)."""
        def provider(r):
            props = dict(r.provider or provider_props or {})
            if not props and r.provider_region:
                props = {"region": r.provider_region}
            return provider_for(r.cloud if r.cloud != "azure" else "azure-native", props)

        found: list[Diagnostic] = []
        for r in resources:
            for d in self.analyze(r.type, r.name, r.urn, engine_value(r.props), r.protect,
                                  provider(r)):
                found.append(Diagnostic(d.policy, d.level, d.urn or r.urn, d.message,
                                        d.description))
        stack = apb.AnalyzeStackRequest(resources=[apb.AnalyzerResource(
            type=r.type, name=r.name, urn=r.urn, properties=_struct(engine_value(r.props)),
            dependencies=sorted({d.urn for ds in r.deps.values() for d in ds}),
            propertyDependencies={k: apb.AnalyzerPropertyDependencies(urns=[d.urn for d in ds])
                                  for k, ds in r.deps.items()},
            options=apb.AnalyzerResourceOptions(protect=r.protect), provider=provider(r))
            for r in resources])
        return found + self._diagnostics(self.stub.AnalyzeStack(stack))

    def analyze_plan(self, plan: Any, provider_props: Optional[Mapping[str, Any]] = None
                     ) -> list[Diagnostic]:
        """Analyze on every resource of a trainstack Plan, then AnalyzeStack on all of them
        (with `provider_props` as every resource's default provider, when given)."""
        def provider(r):
            if provider_props is None:
                return None
            cloud = r.type.split(":", 1)[0]
            return provider_for(cloud, provider_props)

        found: list[Diagnostic] = []
        for r in plan.resources:
            for d in self.analyze(r.type, r.name, r.urn, r.inputs, r.protect, provider(r)):
                # The engine fills in the URN of a per-resource diagnostic itself.
                found.append(Diagnostic(d.policy, d.level, d.urn or r.urn, d.message,
                                        d.description))
        stack = apb.AnalyzeStackRequest(resources=[apb.AnalyzerResource(
            type=r.type, name=r.name, urn=r.urn, properties=_struct(r.inputs),
            parent=r.parent, dependencies=r.dependencies,
            propertyDependencies={k: apb.AnalyzerPropertyDependencies(urns=v)
                                  for k, v in r.property_dependencies.items()},
            options=apb.AnalyzerResourceOptions(protect=r.protect, parent=r.parent),
            **({"provider": provider(r)} if provider_props is not None else {}))
            for r in plan.resources])
        return found + self._diagnostics(self.stub.AnalyzeStack(stack))


def run(pack: PolicyPackProcess, resources: list, config: Optional[Mapping[str, Any]] = None,
        provider: Optional[Mapping[str, Any]] = None) -> list[Diagnostic]:
    """Configure the pack with `config` and drive hand-built resources through it."""
    pack.configure(config)
    return pack.analyze_views(resources, provider)


def verdict(found: list, policy: str) -> str:
    """One policy's verdict in the blind reviews' words: "fail" (a mandatory violation),
    "advisory" (an advisory one), "undecided" (only "cannot decide") or "pass"; exemptions do
    not count. Any traceback or internal error in a message fails the test outright."""
    ds = [d for d in found if d.policy == policy and not d.message.startswith("exempt: ")]
    text = " ".join(d.message for d in found)
    assert "Traceback" not in text and "internal error" not in text.lower(), text
    if any(d.level == "mandatory" and "cannot decide" not in d.message for d in ds):
        return "fail"
    if any("cannot decide" not in d.message for d in ds):
        return "advisory"
    if ds:
        return "undecided"
    return "pass"
