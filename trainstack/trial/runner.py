"""The trial loop (trainstack trial): price every candidate and refuse over budget; then, for
each candidate, cheapest first: up in its zone with a short declared lifetime, move to the next
zone/region on a recorded capacity error, stage the data, wait for every node healthy, bench,
save, destroy (the bucket stays) and check nothing of the stack is left to bill.

Pulumi operations run in a worker thread: Ctrl-C or SIGTERM during one lets the operation stop
(a terminal's Ctrl-C reaches the Pulumi CLI too, which cancels gracefully) before the trial
destroys everything it created; further signals while it tears down are noted, not obeyed. A
crash takes the same way out. Killed hard, the journal says what is still up and
`trainstack trial --resume` destroys it.
"""
from __future__ import annotations

import copy
import signal
import shutil
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Optional

from trainstack.deploy.errors import DeployFailed
from trainstack.measure.bench import BenchOptions
from trainstack.trial.capacity import capacity_error
from trainstack.trial.journal import Journal, TrialLock, journal_folder
from trainstack.trial.plan import (TrialHours, TrialPrice, attempt_config, base_config,
                                   other_locations, price_attempt, stack_name, write_stack_file)
from trainstack_components.errors import SpecError

EXIT_BUDGET = 2


class TrialInterrupted(BaseException):
    """SIGINT/SIGTERM during a trial (a BaseException: no library's `except Exception` eats it)."""

    def __init__(self, signame: str):
        super().__init__(signame)
        self.signame = signame


class BudgetSpent(Exception):
    pass


@dataclass
class TrialOptions:
    candidates: list[str]
    budget_usd: float
    spec: Optional[str] = None
    data: Optional[Path] = None
    train_cmd: Optional[str] = None
    nodes: Optional[int] = None
    hours: TrialHours = field(default_factory=TrialHours)
    health_timeout_s: float = 1800.0
    poll_s: float = 10.0
    max_moves: int = 3
    bench: BenchOptions = field(default_factory=BenchOptions)
    out_dir: Path = Path("trial-results")
    journal_dir: Optional[Path] = None
    skip_credential_check: bool = False
    destroy_tries: int = 3
    cheapest_gpu: bool = False     # the canary: each cloud's cheapest GPU type that plans


@dataclass
class Attempt:
    stack: str
    region: str
    zone: str
    capacity: str
    outcome: str = "pending"   # capacity | skipped | failed | unhealthy | measured | bench-failed
    detail: str = ""

    def as_json(self) -> dict:
        return dict(self.__dict__)


@dataclass
class CandidateResult:
    candidate: str
    cloud: str
    price: TrialPrice
    attempts: list[Attempt] = field(default_factory=list)
    outcome: str = "not tried"
    detail: str = ""
    bench_file: Optional[str] = None
    bench: Optional[dict] = None
    spent_usd: float = 0.0
    left_behind: list[str] = field(default_factory=list)

    def as_json(self) -> dict:
        return {"candidate": self.candidate, "cloud": self.cloud, "price": self.price.as_json(),
                "attempts": [a.as_json() for a in self.attempts], "outcome": self.outcome,
                "detail": self.detail, "bench_file": self.bench_file,
                "spent_usd": self.spent_usd, "left_behind": self.left_behind}


class PulumiDriver:
    """The real lifecycle (trainstack/deploy/lifecycle.py) on the project's stacks."""

    def __init__(self, project_dir: Path, skip_credential_check: bool):
        self.project_dir, self.skip = project_dir, skip_credential_check

    def up(self, stack: str, echo) -> dict:
        from trainstack.deploy import lifecycle
        return lifecycle.up(stack, echo, self.project_dir, self.skip)

    def destroy(self, stack: str, echo) -> list[str]:
        from trainstack.deploy import lifecycle
        return lifecycle.destroy(stack, echo, self.project_dir, self.skip)

    def leftovers(self, stack: str) -> list[str]:
        """What the stack's state still holds after a destroy: every custom resource but the
        providers (a retained bucket leaves the state on destroy, so it is not here either)."""
        from trainstack.deploy import lifecycle
        _, selected = lifecycle.select_stack(stack, self.project_dir, self.skip)
        deployment = selected.export_stack().deployment or {}
        return [f"{r.get('type')} {r.get('id') or r.get('urn')}"
                for r in deployment.get("resources") or []
                if r.get("custom") and not str(r.get("type", "")).startswith("pulumi:providers:")]


def meter_clock() -> float:
    """Seconds, for the spend meter (a test advances it by hours)."""
    return time.monotonic()


class Meter:
    """What the trial has spent: each running stack's USD per hour over the time it was up,
    plus the data staged. Printed after every step; past the budget the trial stops."""

    def __init__(self, budget_usd: float, echo: Callable[[str], None],
                 clock: Optional[Callable[[], float]] = None):
        self.budget, self.echo, self.clock = budget_usd, echo, clock or meter_clock
        self.running: dict[str, tuple[float, float, str]] = {}   # stack -> (since, rate, who)
        self.closed: dict[str, float] = {}                        # candidate -> USD

    def start(self, stack: str, rate: float, candidate: str) -> None:
        self.running.setdefault(stack, (self.clock(), rate, candidate))

    def stop(self, stack: str) -> None:
        if stack in self.running:
            since, rate, who = self.running.pop(stack)
            self.closed[who] = self.closed.get(who, 0.0) + rate * (self.clock() - since) / 3600

    def add(self, candidate: str, usd: float) -> None:
        self.closed[candidate] = self.closed.get(candidate, 0.0) + usd

    def of(self, candidate: str) -> float:
        now = self.clock()
        return self.closed.get(candidate, 0.0) + sum(
            rate * (now - since) / 3600 for since, rate, who in self.running.values()
            if who == candidate)

    @property
    def total(self) -> float:
        now = self.clock()
        return sum(self.closed.values()) + sum(rate * (now - since) / 3600
                                               for since, rate, _ in self.running.values())

    def show(self, step: str) -> None:
        self.echo(f"trial: spent so far {self.total:,.2f} USD of {self.budget:,.2f} ({step})")
        if self.total > self.budget:
            raise BudgetSpent(f"the trial has spent {self.total:,.2f} USD, over --budget-usd "
                              f"{self.budget:,.2f}")


def data_size_gb(folder: Optional[Path]) -> float:
    if folder is None:
        return 0.0
    if not folder.is_dir():
        raise SpecError("--data", f"{folder} is not a folder.",
                        "Pass a folder holding a small subset of your training data.")
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file()) / 1e9


class Trial:
    def __init__(self, project_dir: Path, opts: TrialOptions, echo: Callable[[str], None],
                 driver=None):
        self.project_dir, self.opts, self.echo = project_dir, opts, echo
        self.driver = driver or PulumiDriver(project_dir, opts.skip_credential_check)
        self.meter = Meter(opts.budget_usd, echo)
        self._journal: Optional[Journal] = None
        self.stopping = False
        self.results: list[CandidateResult] = []
        self._instance: dict[str, Optional[str]] = {}
        self._prices: dict[tuple, TrialPrice] = {}
        self._shapes: dict[str, tuple[str, int, bool]] = {}   # candidate -> cloud, nodes, ...

    @property
    def journal(self) -> Journal:
        if self._journal is None:
            raise RuntimeError("the trial has not started: no journal yet")
        return self._journal

    @journal.setter
    def journal(self, journal: Journal) -> None:
        self._journal = journal

    @property
    def started(self) -> bool:
        return self._journal is not None

    # ------------------------------------------------------------------ pricing, up front
    def price(self) -> list[tuple[TrialPrice, dict, object]]:
        data_gb = data_size_gb(self.opts.data)
        priced = []
        for candidate in self.opts.candidates:
            base = base_config(self.project_dir, candidate)
            config = self._config(candidate, base, None, None)
            if self.opts.cheapest_gpu:
                price, inputs = self._cheapest(candidate, base, config, data_gb)
            else:
                price, inputs = self._price_attempt(candidate, config, data_gb)
            priced.append((price, base, inputs))
        priced.sort(key=lambda p: p[0].total)
        return priced

    def _price_attempt(self, candidate: str, config: dict[str, str],
                       data_gb: float) -> tuple[TrialPrice, object]:
        """price_attempt, its price kept for the candidate's attempts (`_priced`)."""
        price, inputs = price_attempt(self.project_dir, candidate, config, self.opts.hours,
                                      data_gb)
        self._prices[self._price_key(candidate, config, data_gb)] = price
        return price, inputs

    @staticmethod
    def _price_key(candidate: str, config: dict[str, str], data_gb: float) -> tuple:
        return candidate, tuple(sorted(config.items())), data_gb

    def _priced(self, candidate: str, config: dict[str, str],
                data_gb: float) -> Optional[TrialPrice]:
        """A copy of the price made up front for this very config, if there is one: the
        attempt in the candidate's own zone is the config the trial priced (same spec file,
        stack, hours and data), and price_attempt is a pure function of those, so its plan need
        not be rendered a second time (a render is 0.5-2 CPU s)."""
        kept = self._prices.get(self._price_key(candidate, config, data_gb))
        return copy.deepcopy(kept) if kept is not None else None

    def _cheapest(self, candidate: str, base: dict, config: dict, data_gb: float):
        """The cheapest GPU type of the candidate's region that its plan accepts."""
        from trainstack.plan.engine import prevalidate
        from trainstack.trial.plan import cheapest_gpu_types
        inputs = prevalidate(config, self.project_dir)
        sel = inputs.selection
        refused = []
        cloud = self._shapes[candidate][0]
        for itype in cheapest_gpu_types(cloud, sel.region, sel.spot, inputs.spec.gpu)[:8]:
            self._instance[candidate] = itype
            try:
                return self._price_attempt(
                    candidate, self._config(candidate, base, sel.region, sel.zone), data_gb)
            except SpecError as problem:
                refused.append(f"{itype}: {problem}")
        raise SpecError(f"--candidates {candidate}", f"no GPU type of {sel.region} plans for "
                        "the trial (" + "; ".join(refused) + ").",
                        "Drop --cheapest-gpu, or move the candidate's stack to another region.")

    def _config(self, candidate: str, base: dict, region: Optional[str],
                zone: Optional[str]) -> dict[str, str]:
        from trainstack.plan.engine import prevalidate
        inputs = prevalidate(base, self.project_dir) if region is None else None
        if inputs is not None:
            region, zone = inputs.selection.region, inputs.selection.zone
            # The candidate's own cloud, node count and lifetime key, for its attempts: every
            # candidate is priced before the first is tried, so one attribute for all of them
            # left each attempt with the last priced candidate's (its cloud's region key and
            # zone override), and a move did not move.
            self._shapes[candidate] = (inputs.cloud, self.opts.nodes or inputs.spec.nodes, bool(
                inputs.spec.workload and inputs.spec.workload.max_hours))
        assert region is not None and zone is not None
        cloud, nodes, lifetime_in_workload = self._shapes[candidate]
        return attempt_config(base, cloud, region, zone, nodes, self.opts.hours.lifetime,
                              self.opts.spec, lifetime_in_workload, self._instance.get(candidate))

    def price_spec_file(self) -> str:
        """The spec file of the first candidate's stack (what the comparison is made over)."""
        from trainstack_components.project import PROJECT
        base = base_config(self.project_dir, self.opts.candidates[0])
        return base.get(f"{PROJECT}:specFile") or "cluster.yaml"

    def refuse_over_budget(self, priced: list[tuple[TrialPrice, dict, object]]) -> None:
        total = sum(p.total for p, _, _ in priced)
        if total > self.opts.budget_usd:
            lines = "; ".join(f"{p.candidate} {p.total:,.2f} USD ({p.nodes} x {p.instance_type} "
                              f"at {p.node_usd_per_hour:,.2f}/h x {p.hours:g} h + filesystem "
                              f"{p.filesystem_usd:,.2f} + data {p.data_usd:,.2f})"
                              for p, _, _ in priced)
            raise SpecError("--budget-usd", f"{self.opts.budget_usd:,.2f} USD is less than the "
                            f"trial is expected to cost, {total:,.2f} USD: {lines}.",
                            "Raise --budget-usd, drop a candidate, trial fewer nodes (--nodes) "
                            "or shorten --bench-hours; nothing was created.")

    # ------------------------------------------------------------------ signals
    def _on_signal(self, signum, frame) -> None:
        del frame
        name = signal.Signals(signum).name
        if self.stopping:
            self.echo(f"trial: {name} noted; still tearing down what the trial created")
            return
        self.stopping = True
        raise TrialInterrupted(name)

    def _in_worker(self, what: str, fn: Callable, *args):
        """Run a Pulumi operation in a thread; an interruption waits for it to stop first, so
        no stack is left in the middle of an update when the teardown starts."""
        box: dict = {}
        done = threading.Event()   # not Thread.is_alive(): a join interrupted by the signal
                                   # can leave it False while the thread still runs (CPython)

        def work():
            try:
                box["value"] = fn(*args)
            except BaseException as failed:  # noqa: BLE001  (handed to the main thread)
                box["error"] = failed
            finally:
                done.set()
        threading.Thread(target=work, name=what, daemon=True).start()
        try:
            while not done.is_set():
                time.sleep(0.1)
        except BaseException:
            self.echo(f"trial: waiting for {what} to stop before tearing down")
            while not done.is_set():
                time.sleep(0.1)
            if "error" in box:
                self.echo(f"trial: {what} ended: {str(box['error']).strip().splitlines()[-1:]}")
            raise
        if "error" in box:
            raise box["error"]
        return box.get("value")

    # ------------------------------------------------------------------ the loop
    def run(self) -> list[CandidateResult]:
        priced = self.price()
        self.refuse_over_budget(priced)
        for p, _, _ in priced:
            self.echo(f"trial: {p.candidate} ({p.cloud} {p.zone}, {p.nodes} x {p.instance_type}, "
                      f"{p.capacity}) expected {p.total:,.2f} USD")
        self.echo(f"trial: expected total {sum(p.total for p, _, _ in priced):,.2f} USD of "
                  f"budget {self.opts.budget_usd:,.2f} USD; each stack declares a "
                  f"{self.opts.hours.lifetime:g} h lifetime")
        folder = journal_folder(self.project_dir, self.opts.journal_dir)
        lock = TrialLock(folder).acquire()
        old = {s: signal.signal(s, self._on_signal) for s in (signal.SIGINT, signal.SIGTERM)}
        try:
            self.journal = Journal.start(folder, self.opts.candidates, self.opts.budget_usd,
                                         self.echo)
            self.journal.event("priced", prices=[p.as_json() for p, _, _ in priced])
            try:
                for price, base, _ in priced:
                    self.results.append(self.candidate(price, base))
            except BaseException as stopped:
                reason = (f"interrupted ({stopped.signame})" if isinstance(stopped, TrialInterrupted)
                          else f"stopped: {type(stopped).__name__}: {stopped}")
                self.stopping = True
                self.echo(f"trial: {reason}; destroying every stack it created")
                self.journal.event("stopping", reason=reason)
                self.teardown_all()
                self.journal.finish(reason)
                raise
            self.journal.finish("done")
        finally:
            for sig, handler in old.items():
                signal.signal(sig, handler)
            lock.release()
        return self.results

    def candidate(self, price: TrialPrice, base: dict) -> CandidateResult:
        result = CandidateResult(price.candidate, price.cloud, price)
        locations = [(price.region, price.zone)] + other_locations(
            price.cloud, price.instance_type, price.region, price.zone, self.opts.max_moves)
        for region, zone in locations:
            stack = stack_name(price.candidate, region, zone)
            attempt = Attempt(stack, region, zone, price.capacity)
            result.attempts.append(attempt)
            if (region, zone) != (price.region, price.zone):
                self.echo(f"trial: {price.candidate}: moving to {region} {zone}")
                self.journal.event("move", candidate=price.candidate, region=region, zone=zone)
            config = self._config(price.candidate, base, region, zone)
            try:
                moved = self._priced(price.candidate, config, price.data_gb)
                if moved is None:
                    moved, _ = price_attempt(self.project_dir, price.candidate, config,
                                             self.opts.hours, price.data_gb)
            except SpecError as refused:
                attempt.outcome, attempt.detail = "skipped", f"the plan refuses it: {refused}"
                self.journal.event("skip", stack=stack, reason=attempt.detail)
                continue
            if moved.instance_type != price.instance_type:
                attempt.outcome = "skipped"
                attempt.detail = f"the plan chooses {moved.instance_type} there"
                self.journal.event("skip", stack=stack, reason=attempt.detail)
                continue
            write_stack_file(self.project_dir, stack, config,
                             f"trainstack trial {self.journal.data['id']}: {price.candidate} in "
                             f"{region} {zone}, lifetime {self.opts.hours.lifetime:g} h")
            if self.attempt(result, attempt, moved):
                break
        else:
            if result.outcome == "not tried":
                result.outcome = "no capacity"
                result.detail = "every zone tried answered with a capacity error: " + "; ".join(
                    f"{a.region} {a.zone}: {a.outcome} {a.detail}" for a in result.attempts)
        result.spent_usd = self.meter.of(price.candidate)
        self.journal.event("candidate", **result.as_json())
        return result

    def attempt(self, result: CandidateResult, attempt: Attempt, price: TrialPrice) -> bool:
        """One stack's trial; True when the candidate is settled (measured or failed for a
        reason no other zone would fix), False to move on to the next location."""
        stack = attempt.stack
        self.echo(f"trial: up {stack} ({price.nodes} x {price.instance_type} in {attempt.zone})")
        self.journal.stack(stack, "creating", candidate=result.candidate, cloud=result.cloud)
        self.meter.start(stack, price.usd_per_hour, result.candidate)
        try:
            outputs = self._in_worker(f"pulumi up {stack}", self.driver.up, stack, self._quiet)
        except DeployFailed as failed:
            found = capacity_error(str(failed), result.cloud)
            self.destroy(stack, result)
            if found is not None:
                attempt.outcome, attempt.detail = "capacity", f"{found.code} ({found.source})"
                self.echo(f"trial: {stack}: no capacity ({found.code}); the partial attempt is "
                          "destroyed, the bucket kept")
                self.journal.event("capacity", stack=stack, code=found.code,
                                   source=found.source)
                return False
            attempt.outcome, attempt.detail = "failed", str(failed).splitlines()[-1]
            result.outcome, result.detail = "up failed", str(failed)
            return True
        self.journal.stack(stack, "up", outputs=_small(outputs))
        self.meter.show(f"{stack} up")
        url = bucket_url(result.cloud, outputs)
        self.journal.bucket(result.candidate, url)
        try:
            if self.opts.data is not None:
                self.stage(url, result)
            names, problem = self.wait_healthy(url, price.nodes)
            if problem:
                attempt.outcome, attempt.detail = "unhealthy", problem
                result.outcome, result.detail = "unhealthy", problem
                self.echo(f"trial: {stack}: {problem}")
                self.journal.event("unhealthy", stack=stack, detail=problem)
                return True
            self.meter.show(f"{stack} healthy")
            self.measure(result, attempt, stack, url, names, outputs)
            return True
        finally:
            self.destroy(stack, result)

    def _quiet(self, line: str) -> None:
        del line   # Pulumi's own progress goes to the journal's events only on failure

    def stage(self, url: str, result: CandidateResult) -> None:
        from trainstack.measure.run import bucket_fs
        fs, base = bucket_fs(url)
        folder = self.opts.data
        assert folder is not None
        files = [p for p in folder.rglob("*") if p.is_file()]
        for path in files:
            fs.put_file(str(path), f"{base}/data/{path.relative_to(folder).as_posix()}")
        self.meter.add(result.candidate, result.price.data_usd)
        self.echo(f"trial: staged {len(files)} file(s), {result.price.data_gb:.3f} GB, into "
                  f"{url}/data/ ({result.price.data_usd:,.2f} USD a month while kept)")
        self.journal.event("staged", bucket=url, files=len(files), gb=result.price.data_gb)

    def wait_healthy(self, url: str, nodes: int) -> tuple[list[str], Optional[str]]:
        """Every node's health record ok, within --health-timeout; else which step of which
        node failed, or which nodes never reported."""
        from trainstack.measure.status import read_records
        deadline = time.monotonic() + self.opts.health_timeout_s
        records = []
        while True:
            records = read_records(url)
            healthy = [r.node for r in records if r.ok]
            if len(healthy) >= nodes:
                return healthy[:nodes], None
            if time.monotonic() > deadline:
                break
            time.sleep(self.opts.poll_s)
        parts = []
        for r in records:
            if not r.ok:
                steps = ", ".join(f"step {s} exited {r.record['steps'][s]}"
                                  for s in r.failed_steps) or "no step failed yet (still booting?)"
                parts.append(f"{r.node}: {steps}")
        missing = nodes - len(records)
        if missing > 0:
            parts.append(f"{missing} node(s) never wrote a health record (status/<node>.json)")
        return [], (f"not every node was healthy after {self.opts.health_timeout_s:g} s "
                    f"(--health-timeout): " + "; ".join(parts))

    def measure(self, result: CandidateResult, attempt: Attempt, stack: str, url: str,
                names: list[str], outputs: dict) -> None:
        from trainstack.measure import bench as bench_mod
        from trainstack.measure.run import Target
        capacity, tier = outputs.get("filesystem_capacity_gib"), outputs.get(
            "filesystem_throughput_mbps_per_tib")
        target = Target(url, tuple(names), result.cloud, stack, result.price.instance_type,
                        capacity / 1024 * tier if capacity and tier else None,
                        result.price.capacity == "spot")
        opts = self.opts.bench
        if self.opts.train_cmd:
            opts.train_cmd = self.opts.train_cmd
        opts.provisioned_mbps = opts.provisioned_mbps or target.provisioned_mbps
        self.echo(f"trial: bench on {stack} ({len(names)} node(s))")
        doc = bench_mod.bench(target, opts, echo=self.echo)
        out = self.opts.out_dir / self.journal.data["id"] / "bench"
        path = bench_mod.save(target, doc, out, name=result.cloud)
        result.bench_file, result.bench = str(path), doc
        failed = [p for p in ("fabric", "storage") if doc.get(p) and doc[p]["rc"]]
        failed += [f"training {k}" for k in ("one_node", "all_nodes")
                   if doc.get("training") and doc["training"][k]["rc"]]
        attempt.outcome = result.outcome = "bench failed" if failed else "measured"
        attempt.detail = result.detail = (f"failed: {', '.join(failed)}" if failed else
                                          f"bench saved in {path} and {url}/bench/")
        self.journal.event("bench", stack=stack, file=str(path), failed=failed)
        self.meter.show(f"{stack} bench")

    def destroy(self, stack: str, result: Optional[CandidateResult] = None) -> bool:
        """Destroy (bucket kept) and check that the state holds nothing more; tries again on a
        failure. True when the stack holds nothing that bills."""
        entry = self.journal.data["stacks"].get(stack) or {}
        if entry.get("state") == "destroyed":
            return True
        self.journal.stack(stack, "destroying")
        error = None
        for _ in range(self.opts.destroy_tries):
            try:
                self._in_worker(f"pulumi destroy {stack}", self.driver.destroy, stack, self._quiet)
                left = self.driver.leftovers(stack)
            except (DeployFailed, SpecError) as failed:
                error = str(failed)
                time.sleep(min(1.0, self.opts.poll_s))
                continue
            self.meter.stop(stack)
            if left:
                error = "still in the state after destroy: " + ", ".join(left)
                if result is not None:
                    result.left_behind.extend(left)
                continue
            self.journal.stack(stack, "destroyed")
            self.echo(f"trial: destroyed {stack}; nothing of it bills but the kept bucket")
            self.meter.show(f"{stack} destroyed")
            return True
        self.journal.stack(stack, "destroy-failed", error=error)
        self.echo(f"trial: could not destroy {stack} ({error}); run `trainstack trial --resume` "
                  f"or `trainstack destroy --stack {stack}`")
        return False

    def teardown_all(self) -> bool:
        ok = True
        for stack in self.journal.live_stacks():
            try:
                ok = self.destroy(stack) and ok
            except BudgetSpent:
                continue   # the meter only speaks; the teardown goes on
        return ok


def bucket_url(cloud: str, outputs: dict) -> str:
    """The stack's bucket URL: its `bucket_url` output where it exports one, else the cloud's
    scheme and its bucket name (trainstack/measure/status.py)."""
    from trainstack.measure.status import stack_bucket_url
    return str(outputs["bucket_url"]) if outputs.get("bucket_url") else stack_bucket_url(
        cloud, outputs)


def _small(outputs: dict) -> dict:
    return {k: v for k, v in outputs.items() if isinstance(v, (str, int, float, bool))}


def resume(project_dir: Path, echo: Callable[[str], None], journal_dir: Optional[Path] = None,
           skip_credential_check: bool = False, driver=None) -> list[str]:
    """Destroy what a stopped trial left up (the journal's live stacks); returns those that
    still could not be destroyed."""
    folder = journal_folder(project_dir, journal_dir)
    lock = TrialLock(folder).acquire()
    try:
        journal = Journal.load(folder, echo)
        live = journal.live_stacks()
        echo(f"trial --resume: journal {journal.data['id']}: "
             + (f"{len(live)} stack(s) may still be up: {', '.join(live)}" if live
                else "nothing is up"))
        trial = Trial(project_dir, TrialOptions(candidates=journal.data["candidates"],
                                                budget_usd=journal.data["budget_usd"],
                                                skip_credential_check=skip_credential_check,
                                                poll_s=1.0),
                      echo, driver)
        trial.journal, trial.stopping = journal, True
        journal.event("resume", live=live)
        for stack in live:
            trial.destroy(stack)
        left = journal.live_stacks()
        journal.finish("resumed: torn down" if not left else "resumed: some stacks left")
        return left
    finally:
        lock.release()
