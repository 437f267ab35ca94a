"""--fail-fast: the run ends at the first verdict that would fail it, for callers that only need to know whether
anything fails (mutation testing: one failing vector kills a mutant). A verdict fails as results.build and
expectations.mark would judge it: a raw failure on a vector that is not impl-level and that no expected-failures
entry covers. The line printed names the runner, the vector, the op and why; no reports are written."""

import os

from harness import expectations
from harness.judge import RAW_FAILING
from harness.runner_process import stop_all

EXIT_CODE = 1


def watch(on_outcome, entries, scope_of, stdout):
    """on_outcome, which first ends the process (exit 1, the runners killed) at a failing outcome.
    entries: {runner name: its expected-failures entries}; scope_of: vector id -> scope (catalog.scope)."""
    indexes = {name: expectations.Index(listing) for name, listing in entries.items()}

    def watched(runner, op, outcome):
        on_outcome(runner, op, outcome)
        if outcome.verdict in RAW_FAILING and op.vector["level"] != "impl" and not _expected(indexes[runner], op, scope_of):
            print(f"fail-fast: {runner} {op.vector_id} {op.name}: {outcome.verdict}: {outcome.detail}", file=stdout,
                  flush=True)
            stop_all()
            os._exit(EXIT_CODE)
    return watched


def _expected(index, op, scope_of):
    return bool(index.hits(op.vector_id, op.name, scope_of(op.vector_id) if index.by_scope else None))
