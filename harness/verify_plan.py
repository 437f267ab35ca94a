"""verify, stage 1 of 4 (harness/verify.py): the command line -> a Plan. The corpus checked against its manifest
and loaded (from the validated-corpus cache when it can), the runners named, the vectors selected, their ops
(from the plan cache on a full run) with the work judging will need done now, and the runners' expected
failures read. --dump prints one vector's request lines instead of planning a run."""

from dataclasses import dataclass
from pathlib import Path

from harness import capabilities, corpus_cache, expectations, judge, manifest, ops as ops_mod, plan_cache, schemas
from harness import selection, workers
from harness.options import UsageError
from harness.runner_config import from_args, known_runners, parse_overrides
from harness.text import shown_path


@dataclass
class Plan:
    catalog: object             # the loaded corpus (corpus_cache.Catalog)
    registry_version: str       # schema/registry.json's corpus version
    configs: list               # [RunnerConfig] in the order named
    required: list              # --require: capabilities every runner must claim
    full_run: bool              # no --case, -k or --family: every vector
    selected: list              # the selected vectors
    ops: list                   # [Op]: what each runner is asked, in order
    entries: dict               # {runner name: its expected-failures entries}
    cache_dir: Path             # None with --no-cache
    to_store: list              # the prepared plan's texts, for plan_cache.store after a complete run, or None
    selection: dict             # report.json's corpus.selection
    journal_header: dict        # what report-journal needs to rebuild the reports of a killed run


def make(args, stdout, stderr):
    """The Plan of a verify command line, or None when --dump printed a vector's request lines instead."""
    # Before loading: a tampered file is named as such, not as whatever schema error the tampering caused.
    cache_dir = None if args.no_cache else Path(args.cache_dir)
    # One read and hash of every file (of those changed since: corpus_cache.py) serves both the manifest
    # check and the cache key.
    digests = corpus_cache.digests(args.corpus, cache_dir) if cache_dir else None
    print(f"harness: corpus: {manifest.check(args.corpus, args.require_manifest, digests)}", file=stderr)
    catalog, how = corpus_cache.open_corpus(args.corpus, cache_dir, digests)
    if how == "cached":
        print(f"harness: corpus: validated before (cache {shown_path(cache_dir)}): not checked again, only the "
              f"files holding the selected vectors are read", file=stderr)
    registry_version = schemas.load("registry.json")["corpus_version"]
    if catalog.version != registry_version:
        print(f"harness: note: corpus files are version {catalog.version}, schema/registry.json says "
              f"{registry_version}", file=stderr)
    if args.dump:
        dump(catalog, args.dump, stdout, stderr)
        return None
    if not args.runners:
        raise UsageError("--runners is required (known runners: "
                         f"{', '.join(known_runners(args.runners_dir)) or 'none'})")
    required = capabilities.parse(args.require)
    configs = from_args(args)
    selected_ids = selection.select(catalog, args.case, args.patterns, args.family, stderr)
    full_run = not args.case and not args.patterns and not args.family
    # A full run takes the vectors and their request and answer lines from the cache when it has them.
    cached = plan_cache.load(cache_dir, catalog) if full_run else None
    selected, plan = cached or (catalog.vectors(selected_ids), None)
    entries = load_expectations(configs, catalog)
    # The files' bytes were hashed and (without a prepared plan) parsed: the run keeps only the vectors.
    digests = None
    catalog.release_files()

    to_store = None
    if plan is None:
        plan = ops_mod.plan(selected)
    # Forked workers share what is made now; in one process the values' canonical JSON is made on first use.
    judge.prepare(plan, values_json=bool(args.workers and workers.usable(len(configs))))
    if cached is None and full_run and cache_dir:
        to_store = plan_cache.texts(plan)
    chosen = {"cases": args.case, "patterns": args.patterns + [f"family:{f}" for f in args.family],
              "full": full_run, "vectors": len(selected), "ops": len(plan)}
    # The header holds what report-journal needs to rebuild the report if this process is killed.
    run = {"selection": {"cases": args.case, "patterns": args.patterns, "families": args.family},
           "commands": {c.name: c.argv for c in configs},
           "expected_failures": {name: str(Path(path).resolve()) for name, path in
                                 parse_overrides(args.expected_failures, "--expected-failures", "FILE").items()}}
    return Plan(catalog, registry_version, configs, required, full_run, selected, plan, entries, cache_dir, to_store,
                chosen, run)


def load_expectations(configs, catalog):
    """{runner name: its expected-failures entries}; a wildcard entry's cap is checked against every op."""
    entries = {c.name: expectations.parse(c.expected_failures) for c in configs}
    if any(e.wildcard for listing in entries.values() for e in listing):     # the cap needs every op's key
        all_keys = catalog.op_keys()
        for listing in entries.values():
            expectations.check_cap(listing, all_keys)
    return entries


def dump(catalog, vector_id, stdout, stderr):
    if vector_id not in catalog.meta:
        raise UsageError(f"--dump {vector_id}: no such vector{selection.did_you_mean(vector_id, catalog.ids)}")
    (vector,) = catalog.vectors([vector_id])
    # The same lines, ids included, that 'verify --case ID' sends to a runner that supports every op.
    stdout.write(ops_mod.encode_line(ops_mod.start_request(catalog.version)).decode("utf-8"))
    for rid, op in enumerate(ops_mod.ops_for(vector), 1):
        stdout.write(op.request_line(rid).decode("utf-8"))
        print(f"# request {rid}: {op.name}", file=stderr)
    return 0
