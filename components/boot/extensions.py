"""Extra boot steps contributed by other parts of trainstack (e.g. the lifecycle's idle
heartbeat), without touching any cloud's component.

A provider is a function `NodeContext -> Sequence[BootStep]`; every cloud's nodes run the steps
it returns after the standard steps and before the health record. Register it once, at import
time of the module that owns it:

    from components.boot import BootFile, BootStep, extensions
    extensions.add_step_provider(lambda ctx: [BootStep("heartbeat", "systemctl enable --now x.timer",
                                                       files=(BootFile(...unit...),))])
"""
from __future__ import annotations

from typing import Callable, Sequence

from components.boot.model import BootStep, NodeContext

StepProvider = Callable[[NodeContext], Sequence[BootStep]]
_PROVIDERS: list[StepProvider] = []


def add_step_provider(provider: StepProvider) -> StepProvider:
    """Register `provider` (idempotent); returns it, so it can be used as a decorator."""
    if provider not in _PROVIDERS:
        _PROVIDERS.append(provider)
    return provider


def remove_step_provider(provider: StepProvider) -> None:
    if provider in _PROVIDERS:
        _PROVIDERS.remove(provider)


def provided_steps(ctx: NodeContext) -> list[BootStep]:
    """Every registered provider's steps for `ctx`, in registration order."""
    return [step for provider in _PROVIDERS for step in provider(ctx)]
