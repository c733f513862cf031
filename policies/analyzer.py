"""The Analyzer gRPC service the engine drives, reading each request once for every rule.

pulumi_policy's servicer hands each policy its own deserialised copy of the request (a stack of
20,000 resources is read once per stack policy, a resource once per resource policy). This
subclass reads the request's resources into `Resource` views once and runs every enabled rule on
them, with the servicer's own configuration, enforcement-level and reporting helpers, so the
diagnostics are the ones pulumi_policy would have sent, plus:
- an advisory note for every exemption ("<name> (<type>) is exempt from <policy> by ..."),
- "cannot decide: ..." as a violation where the policy's cannotDecide is mandatory, else the
  engine's advisory "can't run policy ... during preview" note.
"""
from __future__ import annotations

from typing import Any, Mapping, Optional

from pulumi.runtime.proto import analyzer_pb2 as proto
from pulumi_policy import EnforcementLevel, ResourceValidationPolicy

from trainstack_policies.exemptions import skip_names
from trainstack_policies.model import (
    _UNKNOWN_SENTINELS,
    UNKNOWN,
    Resource,
    UnknownValue,
    _provider_region,
    undecided_message,
)
from trainstack_policies.rules import RULES, Rule
from trainstack_policies.runner import undecided_violation

_HELPERS = ("_get_enforcement_level", "_get_policy_config", "_create_report_violation",
            "_map_enforcement_level", "_configure_runtime_settings", "Analyze", "AnalyzeStack",
            "Remediate")
_BY_NAME = {r.name: r for r in RULES}


def compatible(base: type) -> bool:
    return all(hasattr(base, h) for h in _HELPERS)


_SIG_KEY = "4dabf18193072939515e22adb298388d"      # pulumi_policy.deserialize.SPECIAL_SIG_KEY
_SECRET_SIG = "1b47061264138c4ac30d75fd1eb44270"   # SPECIAL_SECRET_SIG


def _value(v: Any) -> Any:
    kind = v.WhichOneof("kind")
    if kind == "string_value":
        text = v.string_value
        return UNKNOWN if text in _UNKNOWN_SENTINELS else text
    if kind == "number_value":
        return v.number_value
    if kind == "bool_value":
        return v.bool_value
    if kind == "struct_value":
        return _props(v.struct_value)
    if kind == "list_value":
        return [_value(x) for x in v.list_value.values]
    return None


def _props(struct: Any) -> Any:
    """A protobuf Struct as the plain values rules read, in one pass: what
    plain(deserialize_properties(MessageToDict(struct))) gives (unknown sentinels as UNKNOWN,
    secrets unwrapped), at a fraction of the cost; other signatures (assets, archives,
    resource references) stay the dicts they are, which no rule reads."""
    out = {k: _value(v) for k, v in struct.fields.items()}
    if out.get(_SIG_KEY) == _SECRET_SIG:
        return out.get("value")
    return out


class _Provider:
    def __init__(self, props: dict):
        self.props = props


def _view(r: Any, providers: dict) -> Resource:
    provider: dict = {}
    region = None
    if r.HasField("provider"):
        # Keyed by the inputs too: a provider's URN names it, its inputs may differ by run.
        key = (r.provider.urn, r.provider.properties.SerializeToString(deterministic=True))
        if key not in providers:
            props = _props(r.provider.properties)
            props = props if isinstance(props, dict) else {}
            providers[key] = (props, _provider_region(_Provider(props)))
        provider, region = providers[key]
    props = _props(r.properties)
    return Resource(type=r.type, name=r.name, urn=r.urn,
                    props=props if isinstance(props, dict) else {}, retain=None,
                    provider_region=region, provider=provider, protect=bool(r.options.protect))


def rule_config(rule: Rule, given: Optional[Mapping[str, Any]]) -> dict[str, Any]:
    """The policy's properties: schema defaults under what the engine sent (the CLI sends the
    defaults too; a bare Configure may not). Both serving paths use it (pack.py imports it)."""
    out = {k: v["default"] for k, v in rule.schema.items() if "default" in v}
    out.update(given or {})
    return out


def make(base: type) -> type:
    class Analyzer(base):
        def _rules(self, kind: str) -> Optional[list[tuple[Any, Rule, Any]]]:
            """(policy, rule, enforcement level) for each enabled policy of `kind`; None when a
            policy is not one of ours (then pulumi_policy's own path runs)."""
            try:
                policies = self._PolicyAnalyzerServicer__policies
            except AttributeError:
                return None
            out = []
            for policy in policies:
                rule = _BY_NAME.get(policy.name)
                if rule is None:
                    return None
                level = self._get_enforcement_level(policy)
                if rule.kind != kind or level == EnforcementLevel.DISABLED:
                    continue
                if level == EnforcementLevel.REMEDIATE:
                    level = EnforcementLevel.MANDATORY   # none of these policies remediates
                out.append((policy, rule, level))
            return out

        def _note(self, response: Any, policy: Any, message: str, urn: str = "") -> None:
            response.diagnostics.append(proto.AnalyzeDiagnostic(
                policyName=policy.name,
                policyPackName=self._PolicyAnalyzerServicer__policy_pack_name,
                policyPackVersion=self._PolicyAnalyzerServicer__policy_pack_version,
                message=message, urn=urn, description=policy.description,
                enforcementLevel=self._map_enforcement_level(EnforcementLevel.ADVISORY)))

        def _config(self, policy: Any, rule: Rule) -> dict:
            """The policy's properties, worked out once per Configure (pulumi_policy copies
            them on every request)."""
            given = getattr(self, "_PolicyAnalyzerServicer__policy_pack_config", None)
            cache: Optional[tuple[Any, dict[str, dict]]] = getattr(
                self, "_trainstack_configs", None)
            if cache is None or cache[0] is not given:
                cache = (given, {})
                self._trainstack_configs = cache
            if policy.name not in cache[1]:
                cache[1][policy.name] = rule_config(rule, self._get_policy_config(policy.name))
            return cache[1][policy.name]

        def _settings(self) -> None:
            # Reads PULUMI_CONFIG and the stack's settings: they do not change while the
            # engine talks to this process, so once is enough (pulumi_policy does it per call).
            if not getattr(self, "_trainstack_settings", False):
                self._configure_runtime_settings()
                self._trainstack_settings = True

        def _judge(self, response: Any, policy: Any, rule: Rule, level: Any,
                   resources: list[Resource], skips: dict, run: Any) -> None:
            config = self._config(policy, rule)
            report = self._create_report_violation(response, policy.name, policy.description,
                                                   level, policy.severity)
            for e in rule.exemptions(resources, config, skips):
                self._note(response, policy, f"{policy.description}\nexempt: {e.message}",
                           e.urn)
            try:
                try:
                    found = run(config, skips)
                except UnknownValue:
                    raise
                except Exception as crash:  # noqa: BLE001
                    # A shape no rule expected (a string where a list goes): a crash would fail
                    # the whole preview; say what could not be read instead.
                    subject = resources[0] if len(resources) == 1 else Resource(
                        "stack", "the stack", "", {})
                    raise UnknownValue(subject, f"(inputs of a shape the policy cannot read: "
                                                f"{type(crash).__name__}: {crash})") from None
            except UnknownValue as err:
                if config.get("cannotDecide", rule.undecided_default) != "mandatory":
                    pack = self._PolicyAnalyzerServicer__policy_pack_name
                    version = self._PolicyAnalyzerServicer__policy_pack_version
                    self._note(response, policy, f"can't run policy '{policy.name}' from policy "
                               f"pack '{pack}@v{version}' during preview: "
                               f"{undecided_message(err)}")
                    return
                found = [undecided_violation(err)]
            for v in found:
                report(v.message, v.urn or None)

        def Configure(self, request, context):  # noqa: N802
            """pulumi_policy takes any property; a misspelt one (maxMonthlyUSD) would then be
            ignored and the cap dropped. Refused as `trainstack check` refuses it: the engine
            stops with the message instead of running without the setting."""
            from google.protobuf import json_format

            from trainstack_policies.pack_config import unknown_names, unknown_properties
            given = {name: json_format.MessageToDict(c.properties)
                     for name, c in request.policyConfig.items()}
            problems = unknown_names(given) + [p for name, props in given.items()
                                               if name in _BY_NAME
                                               for p in unknown_properties(_BY_NAME[name], props)]
            if problems:
                import grpc
                context.abort(grpc.StatusCode.INVALID_ARGUMENT, "; ".join(problems) + ". Fix the "
                              "spelling (a setting the pack does not know is never applied).")
            return super().Configure(request, context)

        def Analyze(self, request, context):  # noqa: N802 (the gRPC method name)
            rules = self._rules("resource")
            if rules is None:
                return super().Analyze(request, context)
            self._settings()
            response = proto.AnalyzeResponse()
            if not rules:
                return response
            providers = getattr(self, "_trainstack_providers", None)
            if providers is None:
                providers = self._trainstack_providers = {}
            r = _view(request, providers)
            skips = {id(r): skip_names(r)}
            for policy, rule, level in rules:
                self._judge(response, policy, rule, level, [r], skips,
                            lambda config, skips, rule=rule: rule.run_resource(r, config, skips))
            return response

        def Remediate(self, request, context):  # noqa: N802
            """The engine calls Remediate before Analyze on every resource (step_generator.go:
            a remediation pass, then an analysis pass). pulumi_policy deserialises the whole
            resource on every call before looking for a remediation; none of these policies
            remediates, so the answer is known without reading the request: each policy set to
            `remediate` is reported not applicable, exactly as pulumi_policy reports it."""
            try:
                policies = self._PolicyAnalyzerServicer__policies
            except AttributeError:
                return super().Remediate(request, context)
            self._settings()
            response = proto.RemediateResponse()
            for policy in policies:
                if _BY_NAME.get(policy.name) is None:
                    return super().Remediate(request, context)
                if not isinstance(policy, ResourceValidationPolicy):
                    continue   # pulumi_policy asks only resource policies to remediate
                if policy.has_remediation():
                    return super().Remediate(request, context)
                if self._get_enforcement_level(policy) == EnforcementLevel.REMEDIATE:
                    response.not_applicable.append(proto.PolicyNotApplicable(
                        policy_name=policy.name, reason="Policy does not implement remediate"))
            return response

        def AnalyzeStack(self, request, context):  # noqa: N802
            rules = self._rules("stack")
            across = self._rules("resource")
            if rules is None or across is None:
                return super().AnalyzeStack(request, context)
            across = [(p, r, level) for p, r, level in across if r.stack_check is not None]
            self._settings()
            response = proto.AnalyzeResponse()
            if not rules and not across:
                return response
            providers: dict = {}
            views: dict[str, Resource] = {}
            for r in request.resources:
                if not r.type.startswith("pulumi:"):
                    views[r.urn] = _view(r, providers)
            for r in request.resources:
                view = views.get(r.urn)
                if view is not None and r.propertyDependencies:
                    view.deps = {k: [views[u] for u in v.urns if u in views]
                                 for k, v in r.propertyDependencies.items()}
            resources = list(views.values())
            skips = {id(r): skip_names(r) for r in resources}
            for policy, rule, level in rules:
                self._judge(response, policy, rule, level, resources, skips,
                            lambda config, skips, rule=rule: rule.run_stack(resources, config,
                                                                            skips))
            for policy, rule, level in across:
                # No resources for exemption notes: each resource's Analyze call gave them.
                self._judge(response, policy, rule, level, [], skips,
                            lambda config, skips, rule=rule: rule.run_across(resources, config,
                                                                             skips))
            return response

    return Analyzer
