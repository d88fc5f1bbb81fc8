"""Contract policies as versioned configuration (``calendars/policies``).

Source ``calendars/policies/<name>.toml``::

    description = "Support contract: a response within 14 days …"
    initial_tier = "standard"

    [tiers.standard]
    target = "14d"
    calendar = "support-desk-example"       # a bundle; compiling pins its newest version

    [tiers.priority]
    target = "48bh"
    calendar = "support-desk-example"

    [events.customer_reply]                 # what the event does, by clock status
    RUNNING = "RESET"
    PAUSED = "RESUME"

    [events.tier_change]
    RUNNING = "RETARGET"
    PAUSED = "RETARGET"
    anchor = "EVENT"                        # or "START"

Compiling pins every calendar to ``name@version`` and hashes the result like
a bundle (``calendars/policies/compiled/<name>/<version>.json``), so a policy
version always evaluates against the same calendars.
"""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

from duetime.core import DuetimeError, InvalidArgument
from duetime.core.clock import Anchor, EventType, Measure, measure_of
from duetime.core.durations import parse_duration
from duetime.core.sla import START_EVENT, Policy, Rule, Tier
from duetime.core.sla_metrics import STATUSES, Metric, MetricPolicy, check_rules, one_metric, parse_warning

from .compiler import CheckProblem, Compiled, check_compiled, publish, read_compiled, read_versions, version_of
from .source import SourceError, _NAME
from .store import BundleNotFound, BundleStore, split_ref

_STATUSES = ("RUNNING", "PAUSED")
#: How many metrics a policy may declare, and warnings a metric.
MAX_METRICS = 16
MAX_WARNINGS = 8
_ACTIONS = {e.value for e in EventType}


def compile_policy(path: Path, bundles: BundleStore) -> tuple[dict, str]:
    """Resolve a policy source into (content, version). Raises SourceError."""
    name, where = path.stem, str(path)
    if not _NAME.fullmatch(name):
        raise SourceError(f"{where}: a policy name is lower-case letters, digits and '-'")
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
        raise SourceError(f"{where}: not valid TOML: {e}") from None
    content = _compile_data(name, where, data, bundles)
    return content, version_of(content)


def _target_text(t: dict, where: str, compiled: bool = False) -> str:
    """A target as written (``t["target"]``); SourceError naming ``where``
    for a number without a unit (``8``, ``"8"``): over the API a bare number
    is milliseconds, which no SLA means. ``compiled``: a version compiled
    before that was refused keeps its meaning (milliseconds)."""
    target = t.get("target", "")
    if not compiled and (isinstance(target, (int, float)) or str(target).strip().lstrip("+-").isdigit()):
        raise SourceError(f"{where}: target {target!r} has no unit: write it with one, e.g. \"8bh\", "
                          f"\"3bd\" or \"48h\"")
    return str(target)


def _compile_data(name: str, where: str, data: dict, bundles: BundleStore, compiled: bool = False) -> dict:
    """The compiled content of policy ``name`` from its source ``data`` (a
    policy with metrics or one clock). Raises SourceError naming ``where``
    and the key. ``compiled``: ``data`` is a compiled version's content,
    checked as it was when compiled (a number without a unit, refused since,
    is milliseconds; a metric name with '-' stays)."""
    if "metrics" in data:
        return _compile_metrics(name, where, data, bundles, compiled)
    tiers = data.get("tiers")
    if not isinstance(tiers, dict) or not tiers:
        raise SourceError(f"{where}: give at least one [tiers.NAME] with target and calendar")
    out_tiers = {}
    for tname, t in tiers.items():
        w = f"{where}: tiers.{tname}"
        if not isinstance(t, dict):
            raise SourceError(f"{w}: write {{ target = \"48bh\", calendar = \"NAME\" }}")
        try:
            measure_of(parse_duration(_target_text(t, w, compiled), "target"), "target")
            bundle = bundles.resolve(str(t.get("calendar", "")), "calendar")
        except (DuetimeError, BundleNotFound) as e:
            raise SourceError(f"{w}: {e}") from None
        out_tiers[tname] = {"target": str(t["target"]), "calendar": bundle.ref}
    initial = data.get("initial_tier", next(iter(tiers)))
    if initial not in tiers:
        raise SourceError(f"{where}: initial_tier {initial!r} is not one of the tiers {sorted(tiers)}")
    events = data.get("events", {})
    if not isinstance(events, dict):
        raise SourceError(f"{where}: events: write [events.NAME] tables")
    out_events = {}
    for ename, rule in events.items():
        w = f"{where}: events.{ename}"
        if not isinstance(rule, dict):
            raise SourceError(f"{w}: map RUNNING / PAUSED to one of {sorted(_ACTIONS)} (and optionally anchor)")
        if ename == START_EVENT:
            raise SourceError(f"{w}: {START_EVENT!r} is reserved: every history begins with it")
        actions = {k: str(v).upper() for k, v in rule.items() if k in _STATUSES}
        unknown = set(rule) - set(_STATUSES) - {"anchor"}
        if unknown or any(a not in _ACTIONS for a in actions.values()) or not actions:
            raise SourceError(f"{w}: map RUNNING / PAUSED to one of {sorted(_ACTIONS)} (and optionally anchor)")
        anchor = str(rule.get("anchor", "EVENT")).upper()
        if anchor not in ("EVENT", "START"):
            raise SourceError(f"{w}: anchor is EVENT or START")
        out_events[ename] = {**actions, "anchor": anchor}
    return {
        "format": 1,
        "kind": "policy",
        "name": name,
        "description": str(data.get("description", "")),
        "initial_tier": initial,
        "tiers": out_tiers,
        "events": out_events,
    }


def _compile_metrics(name: str, where: str, data: dict, bundles: BundleStore, compiled: bool = False) -> dict:
    """The compiled content of a policy with ``[metrics.NAME]`` tables
    (docs/semantics.md §17). Raises SourceError naming the table."""
    metrics = data["metrics"]
    if not isinstance(metrics, dict) or not metrics:
        raise SourceError(f"{where}: give at least one [metrics.NAME] with targets and events")
    if len(metrics) > MAX_METRICS:
        raise SourceError(f"{where}: {len(metrics)} metrics; at most {MAX_METRICS} are allowed")
    unknown = set(data) - {"description", "initial_tier", "metrics"}
    if unknown:
        raise SourceError(f"{where}: a policy with metrics has description, initial_tier and [metrics.NAME] "
                          f"tables only (not {', '.join(sorted(unknown))})")
    out, tier_names = [], None
    for mname, m in metrics.items():
        w = f"{where}: metrics.{mname}"
        if ("-" in mname and not compiled) or not _NAME.fullmatch(mname.replace("_", "-")) or not isinstance(m, dict):
            raise SourceError(f"{w}: a metric is a table named with lower-case letters, digits and '_'")
        extra = set(m) - {"targets", "events", "warnings"}
        if extra:
            raise SourceError(f"{w}: a metric has targets, events and warnings (not {', '.join(sorted(extra))})")
        targets = m.get("targets")
        if not isinstance(targets, dict) or not targets:
            raise SourceError(f"{w}: give [metrics.{mname}.targets] with TIER = {{ target = ..., calendar = ... }}")
        if tier_names is None:
            tier_names = list(targets)
        elif sorted(targets) != sorted(tier_names):
            raise SourceError(f"{w}.targets: every metric has a target for each tier ({', '.join(tier_names)})")
        out_targets, measures, amounts = {}, set(), {}
        for tname, t in targets.items():
            tw = f"{w}.targets.{tname}"
            if not isinstance(t, dict):
                raise SourceError(f"{tw}: write {{ target = \"4bh\", calendar = \"NAME\" }}")
            try:
                target = parse_duration(_target_text(t, tw, compiled), "target")
                measures.add(measure_of(target, "target"))
                if measure_of(target, "target") is not Measure.BUSINESS_DAY:  # a bd target's open time varies
                    amounts[tname] = target.micros
                bundle = bundles.resolve(str(t.get("calendar", "")), "calendar")
            except (DuetimeError, BundleNotFound) as e:
                raise SourceError(f"{tw}: {e}") from None
            out_targets[tname] = {"target": str(t["target"]), "calendar": bundle.ref}
        warnings = m.get("warnings", [])
        if not isinstance(warnings, list) or len(warnings) > MAX_WARNINGS:
            raise SourceError(f"{w}.warnings: a list of at most {MAX_WARNINGS} thresholds, e.g. [\"75%\", \"30bm\"]")
        for k, text in enumerate(warnings):
            for measure in measures:
                try:
                    warning = parse_warning(str(text), measure, f"warnings[{k}]", bare_ms=compiled)
                except DuetimeError as e:
                    raise SourceError(f"{w}.{e}") from None
                for tname, amount in amounts.items():  # it would fall at every start (docs/semantics.md §17)
                    if not compiled and warning.left_us is not None and warning.left_us >= amount:
                        raise SourceError(
                            f"{w}.warnings[{k}]: {warning.text!r} left is not less than tier {tname!r}'s target "
                            f"{targets[tname]['target']!r}, so it would fall at every start; give an amount "
                            f"less than every tier's target, or a share such as '75%'")
        events = m.get("events", {})
        if not isinstance(events, dict):
            raise SourceError(f"{w}.events: map each event to what it does, e.g. events.NAME = {{ RUNNING = \"PAUSE\" }}")
        out_events = {START_EVENT: {"NOT_STARTED": "START", "anchor": "EVENT"}}
        for ename, rule in events.items():
            ew = f"{w}.events.{ename}"
            if not isinstance(rule, dict):
                raise SourceError(f"{ew}: map statuses ({', '.join(STATUSES)}) to actions")
            actions = {k: str(v).upper() for k, v in rule.items() if k != "anchor"}
            anchor = str(rule.get("anchor", "EVENT")).upper()
            if anchor not in ("EVENT", "START"):
                raise SourceError(f"{ew}: anchor is EVENT or START")
            problems = check_rules(Metric(mname, {}, {ename: actions}, {}), f"{w}.events")
            if problems:
                raise SourceError(f"{where}: {problems[0].removeprefix(where + ': ')}")
            out_events[ename] = {**actions, "anchor": anchor}
        out.append({"name": mname, "targets": out_targets, "events": out_events,
                    "warnings": [str(x) for x in warnings]})
    initial = data.get("initial_tier", tier_names[0])
    if initial not in tier_names:
        raise SourceError(f"{where}: initial_tier {initial!r} is not one of the tiers {sorted(tier_names)}")
    return {"format": 1, "kind": "policy", "name": name, "description": str(data.get("description", "")),
            "initial_tier": initial, "tiers": {}, "metrics": out}


def check_compiled_content(content: dict, where: str, bundles: BundleStore) -> None:
    """Check a compiled policy version's content as compiling checks its
    source (its tiers or metrics, targets, calendars, events, actions,
    anchors, warnings). Raises SourceError naming ``where`` (the compiled
    file) and the key path; a content that is not a compiled policy at all
    (wrong shapes) says so."""
    try:
        data = {k: content[k] for k in ("description", "initial_tier") if k in content}
        if "metrics" in content:
            metrics = content["metrics"]
            if not isinstance(metrics, list) or not all(isinstance(m, dict) and "name" in m for m in metrics):
                raise SourceError(f"{where}: metrics: a list of tables with a name each")
            data["metrics"] = {}
            for m in metrics:
                data["metrics"][str(m["name"])] = {k: v for k, v in m.items() if k != "name"}
                if "targets" not in m:
                    raise SourceError(f"{where}: metrics.{m['name']}: has no targets")
        else:
            data["tiers"], data["events"] = content.get("tiers"), content.get("events", {})
        _compile_data(str(content.get("name", "")), where, data, bundles, compiled=True)
    except SourceError:
        raise
    except (KeyError, TypeError, AttributeError, ValueError) as e:
        raise SourceError(f"{where}: not a compiled policy ({type(e).__name__}: {e})") from None


def compile_policies(root: Path, bundles: BundleStore) -> list[Compiled]:
    """Compile every ``root/*.toml`` policy (root is ``calendars/policies``)."""
    results = [(p.stem, *compile_policy(p, bundles)) for p in sorted(root.glob("*.toml"))]
    return [publish(root, name, content, version) for name, content, version in results]


def check_policies(root: Path, bundles: BundleStore) -> list[CheckProblem]:
    problems = []
    for p in sorted(root.glob("*.toml")):
        try:
            content, version = compile_policy(p, bundles)
        except SourceError as e:
            problems.append(CheckProblem(f"policies/{p.name}", str(e)))
            continue
        versions = read_versions(root, p.stem)
        if not versions:
            problems.append(CheckProblem(f"policies/{p.name}", "never compiled: run `duetime calendars compile`"))
        elif versions[-1] != version:
            problems.append(CheckProblem(f"policies/{p.name}", f"the source (or a calendar it uses) changed since "
                                                               f"version {versions[-1]} (would be {version})"))
    problems += [CheckProblem(f"policies/{x.where}", x.problem) for x in check_compiled(root)]
    for d in sorted(p for p in (root / "compiled").iterdir() if p.is_dir()) if (root / "compiled").exists() else []:
        for v in read_versions(root, d.name):
            where = f"policies/compiled/{d.name}/{v}.json"
            try:
                check_compiled_content(read_compiled(root, d.name, v), where, bundles)
            except SourceError as e:
                problems.append(CheckProblem(where, str(e).removeprefix(f"{where}: ")))
            except (OSError, ValueError):
                continue  # unreadable: check_compiled says so
    return problems


class PolicyStore:
    """Compiled policy versions, resolved against a bundle store."""

    def __init__(self, contents: dict[str, list[tuple[str, dict]]], bundles: BundleStore):
        self._contents = contents
        self._bundles = bundles

    @classmethod
    def load(cls, root: Path, bundles: BundleStore) -> "PolicyStore":
        out: dict[str, list[tuple[str, dict]]] = {}
        base = Path(root) / "compiled"
        for d in sorted(p for p in base.iterdir() if p.is_dir()) if base.exists() else []:
            versions = []
            for v in read_versions(Path(root), d.name):
                content = read_compiled(Path(root), d.name, v)
                if version_of(content) != v:
                    raise ValueError(f"{d / v}.json: content does not hash to its version (edited by hand?)")
                # what compiling checks, so a version is refused here, naming its file, not answered INTERNAL;
                # every pinned calendar must be loadable too
                check_compiled_content(content, f"{d / v}.json", bundles)
                versions.append((v, content))
            out[d.name] = versions
        return cls(out, bundles)

    def names(self) -> list[str]:
        return sorted(self._contents)

    def refs(self) -> list[str]:
        """Every loaded version as ``name@version``, by name, oldest first."""
        return [f"{n}@{v}" for n in self.names() for v, _ in self._contents[n]]

    def versions(self, name: str) -> list[str]:
        """The loaded versions of policy ``name``, oldest first (empty: no such policy)."""
        return [v for v, _ in self._contents.get(name, ())]

    def resolve(self, ref: str, field: str = "policy") -> Policy:
        """``name`` (newest) or ``name@version`` → core Policy (InvalidArgument naming ``field``)."""
        name, version = split_ref(ref, field)
        versions = self._contents.get(name)
        if not versions:
            raise InvalidArgument.at(field, f"no policy named {name!r} (known: {', '.join(self.names()) or 'none'})")
        v = version or versions[-1][0]
        found = self._found(name, version, versions, field)
        if "metrics" in found:  # the tiers of its first metric, every event (docs/semantics.md §17)
            first = found["metrics"][0]["targets"]
            tiers = {n: Tier(n, t["target"], self._bundles.resolve(t["calendar"]).calendar, t["calendar"])
                     for n, t in first.items()}
            events = {e for m in found["metrics"] for e in m["events"]} - {START_EVENT}
            return Policy(name, v, found["initial_tier"], tiers, {e: Rule({}) for e in sorted(events)})
        tiers = {
            n: Tier(n, t["target"], self._bundles.resolve(t["calendar"]).calendar, t["calendar"])
            for n, t in found["tiers"].items()
        }
        rules = {
            e: Rule({s: EventType(a) for s, a in r.items() if s in _STATUSES}, Anchor(r["anchor"]))
            for e, r in found["events"].items()
        }
        return Policy(name, v, found["initial_tier"], tiers, rules)

    @staticmethod
    def _found(name: str, version: str, versions: list[tuple[str, dict]], field: str) -> dict:
        v = version or versions[-1][0]
        found = next((c for have, c in versions if have == v), None)
        if found is None:
            raise InvalidArgument.at(field, f"policy {name!r} has no version {version!r} "
                                            f"(versions: {', '.join(have for have, _ in versions)})")
        return found

    def resolve_metrics(self, ref: str, field: str = "policy") -> MetricPolicy:
        """``name`` or ``name@version`` → the policy as metrics (a one-clock
        policy is one unnamed metric; docs/semantics.md §17). InvalidArgument
        naming ``field`` as :meth:`resolve`."""
        policy = self.resolve(ref, field)
        found = self.content(f"{policy.name}@{policy.version}")
        if "metrics" not in found:
            return one_metric(policy)
        metrics = []
        for m in found["metrics"]:
            targets = {n: Tier(n, t["target"], self._bundles.resolve(t["calendar"]).calendar, t["calendar"])
                       for n, t in m["targets"].items()}
            measure = measure_of(parse_duration(next(iter(targets.values())).target, "target"), "target")
            rules = {e: {s: a for s, a in r.items() if s != "anchor"} for e, r in m["events"].items()}
            anchors = {e: Anchor(r.get("anchor", "EVENT")) for e, r in m["events"].items()}
            warnings = tuple(parse_warning(w, measure, "warnings", bare_ms=True) for w in m["warnings"])
            metrics.append(Metric(m["name"], targets, rules, anchors, warnings))
        return MetricPolicy(policy.name, policy.version, found["initial_tier"], tuple(policy.tiers), tuple(metrics))

    def content(self, ref: str) -> dict:
        """The compiled content of ``name@version``, or of ``name``'s newest
        version (the one :meth:`resolve` takes). Empty: no such policy or
        version."""
        name, _, version = ref.partition("@")
        versions = self._contents.get(name) or []
        if not version:
            return versions[-1][1] if versions else {}
        return next((c for v, c in versions if v == version), {})


def dump(content: dict) -> str:
    return json.dumps(content, sort_keys=True, indent=1, ensure_ascii=False)
