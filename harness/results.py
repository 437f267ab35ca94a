"""Final verdict records: one per (runner, vector, op), after levels and expectations are applied."""

from dataclasses import dataclass, field

# Verdicts that fail the run. 'skip' fails too: a runner that cannot do something must say so in its list.
# 'abandoned': never sent, because the runner was given up after too many crashes / timeouts in a row.
FAILING = ("fail", "skip", "crash", "timeout", "protocol-error", "abandoned", "xpass")
PASSING = ("pass", "coarse", "xfail", "info", "unclaimed")
# 'coarse': a reject answered with a class the runner declared in capabilities.coarse_classes that is an ancestor of
# the expected one (judge.coarse): rejected, the class judged on its family; needs no listing, shown apart from 'pass'.
# 'unclaimed': outside the eras / formats / ops of the runner's start answer; not sent, needs no listing, shown
# everywhere (and --require turns a missing capability into a failure).
ORDER = ("pass", "coarse", "fail", "xfail", "xpass", "skip", "crash", "timeout", "protocol-error", "abandoned", "info",
         "unclaimed")
FAULTS = ("crash", "timeout", "protocol-error", "abandoned")     # the runner broke (JUnit: error)


@dataclass(slots=True)     # 170,000 of them in a full run: slots make them smaller and quicker to make
class Verdict:
    runner: str
    vector: str
    op: str
    verdict: str
    outcome: str            # the verdict before levels and expectations (pass, fail, skip, crash, ...)
    level: str
    rules: list
    era: str
    detail: str
    diagnosis: list = field(default_factory=list)
    answer: str = None
    matched: str = None
    expectation: str = None


def build(runner, ops, outcomes):
    """One Verdict per op that has an outcome (all of them, unless the run was interrupted)."""
    verdicts = []
    for op in ops:
        o = outcomes.get(op.key)
        if o is None:
            continue
        level = op.vector["level"]
        # impl-level vectors record what the runner did, and never fail the run.
        verdict = "info" if level == "impl" and o.verdict != "unclaimed" else o.verdict
        verdicts.append(Verdict(runner, op.vector_id, op.name, verdict, o.verdict, level, op.vector["rules"],
                                op.vector["era"], o.detail, o.diagnosis, o.answer, o.matched))
    return verdicts


def counts(verdicts):
    out = {k: 0 for k in ORDER}
    for v in verdicts:
        out[v.verdict] += 1
    return out


def counts_of(result, verdicts):
    """counts(verdicts), made once: a RunnerResult keeps those of its verdicts from when its session ended
    (verify_run's finish), while other runners still ran (the report, its totals and the closing lines counted
    every runner's verdicts again after the last one: 0.02 s of a full run's end)."""
    made = getattr(result, "counts", None)
    return made if made is not None and verdicts is getattr(result, "verdicts", None) else counts(verdicts)
