"""Extra boot steps contributed by other parts of trainstack (e.g. the lifecycle's idle
heartbeat), without touching any cloud's component.

A provider is a function `(NodeContext) -> Sequence[BootStep]`, or `(NodeContext, CloudBoot) ->
...` when its steps need the cloud's facts (its `upload`, `node_name`); every cloud's nodes run
the steps it returns after the standard steps and before the health record. Register it once,
at import time of the module that owns it:

    from trainstack_components.boot import BootFile, BootStep, extensions
    extensions.add_step_provider(lambda ctx: [BootStep("heartbeat", "systemctl enable --now x.timer",
                                                       files=(BootFile(...unit...),))])

Built-in providers (BUILTIN_PROVIDERS: the preemption agent, components/boot/preemption.py;
the idle agent, components/boot/idle.py) are imported
the first time steps are asked for, so every cloud gets them without importing them itself.
"""
from __future__ import annotations

import importlib
import inspect
from typing import Callable, Optional, Sequence

from trainstack_components.boot.model import BootStep, CloudBoot, NodeContext

StepProvider = Callable[..., Sequence[BootStep]]
_PROVIDERS: list[StepProvider] = []
BUILTIN_PROVIDERS = ("trainstack_components.boot.jobs", "trainstack_components.boot.preemption",
                     "trainstack_components.boot.idle")
_builtins_loaded = False


def add_step_provider(provider: StepProvider) -> StepProvider:
    """Register `provider` (idempotent); returns it, so it can be used as a decorator."""
    if provider not in _PROVIDERS:
        _PROVIDERS.append(provider)
    return provider


def remove_step_provider(provider: StepProvider) -> None:
    if provider in _PROVIDERS:
        _PROVIDERS.remove(provider)


def load_builtin_providers() -> None:
    global _builtins_loaded
    if not _builtins_loaded:
        _builtins_loaded = True
        for module in BUILTIN_PROVIDERS:
            importlib.import_module(module)


def _wants_cloud(provider: StepProvider) -> bool:
    try:
        params = inspect.signature(provider).parameters.values()
    except (TypeError, ValueError):
        return False
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    return len(positional) >= 2 or any(p.kind == p.VAR_POSITIONAL for p in params)


def provided_steps(ctx: NodeContext, cloud: Optional[CloudBoot] = None) -> list[BootStep]:
    """Every registered provider's steps for `ctx`: the built-in ones in BUILTIN_PROVIDERS'
    order (whichever module was imported first), then the others in registration order.
    A provider that takes the cloud is skipped when no cloud is given."""
    load_builtin_providers()
    steps: list[BootStep] = []
    # Built-in steps run in BUILTIN_PROVIDERS order whoever imported their module first (a test
    # importing one would otherwise move it ahead); the others follow in registration order.
    rank = {module: i for i, module in enumerate(BUILTIN_PROVIDERS)}
    ordered = sorted(_PROVIDERS, key=lambda p: rank.get(getattr(p, "__module__", ""), len(rank)))
    for provider in ordered:
        if _wants_cloud(provider):
            if cloud is not None:
                steps.extend(provider(ctx, cloud))
        else:
            steps.extend(provider(ctx))
    return steps
