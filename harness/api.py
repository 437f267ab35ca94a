"""The harness's public API: what the fuzzer (fuzz/), the benchmarks (bench/) and tools/ use of it. The rest of
harness/ is internal (the verify pipeline, its caches, its reports) and may change; these names keep their meaning.

Corpus     open_corpus(path, cache_dir) -> (catalog, how): checked and loaded through the validated-corpus cache
           (DEFAULT_CACHE is verify's); load_corpus(path) -> the corpus read and checked afresh; CorpusError;
           check_manifest(path, require) -> what vectors/manifest.json says of the files, or ManifestError;
           REPO_ROOT, load_schema(name) -> one of schema/*.json.
Ops        plan_ops(vectors) -> [Op], every op of the vectors in verify's order; Op(vector, name, cmd, hex=...);
           unsupported(op, capabilities) -> why a runner's claims rule the op out, or None.
Runners    resolve(names, runners_dir, commands, expected_failures) -> [RunnerConfig], parse_overrides (a
           NAME=VALUE option), known_runners, ConfigError. Session(config, corpus_version, timeout, start_timeout,
           window, stderr_log, max_faults) drives one runner: run(ops) -> RunnerResult, or open / exchange /
           close for batches; StartError. RunnerProcess is the bare process (read_line -> a line, EOF, TIMEOUT
           or LineTooLong), StderrLog its stderr file.
Verdicts   Outcome (one op's raw verdict), FAULTS (the outcomes that are the runner's faults),
           build_verdicts(runner, ops, outcomes) -> [Verdict]; parse_expectations(path), compile_glob(glob),
           apply_expectations(entries, verdicts, full_run, scope_of, corpus_scope), CorpusScope(catalog).
Helpers    SECONDS, number(kind, low, high): range-checked argparse types; compact(values) -> one line of JSON;
           run_threads / start_threads: callables on threads with a stack deep enough for nested vectors.
"""

from harness.cli import DEFAULT_CACHE
from harness.corpus import CorpusError, load as load_corpus
from harness.corpus_cache import open_corpus
from harness.diagnosis import compact
from harness.expectations import (WILDCARD_CAP, CorpusScope, apply as apply_expectations, compile_glob,
                                  parse as parse_expectations)
from harness.judge import Outcome
from harness.manifest import ManifestError, check as check_manifest
from harness.ops import Op, plan as plan_ops, unsupported
from harness.options import SECONDS, number
from harness.results import FAULTS, build as build_verdicts
from harness.runner_config import ConfigError, known_runners, parse_overrides, resolve
from harness.runner_process import EOF, TIMEOUT, LineTooLong, RunnerProcess, StderrLog
from harness.runner_session import RunnerResult, Session, StartError
from harness.schemas import REPO_ROOT, load as load_schema
from harness.threads import run_all as run_threads, start as start_threads

__all__ = ["DEFAULT_CACHE", "CorpusError", "load_corpus", "ManifestError", "check_manifest", "open_corpus", "compact", "CorpusScope", "compile_glob", "WILDCARD_CAP",
           "apply_expectations", "parse_expectations", "Outcome", "Op", "plan_ops", "unsupported", "SECONDS",
           "number", "FAULTS", "build_verdicts", "ConfigError", "known_runners", "parse_overrides", "resolve", "EOF",
           "TIMEOUT", "LineTooLong", "RunnerProcess", "StderrLog", "RunnerResult", "Session", "StartError",
           "REPO_ROOT", "load_schema", "run_threads", "start_threads"]
