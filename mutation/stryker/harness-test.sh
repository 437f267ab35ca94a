#!/bin/sh
# Stryker's test command (stryker.config.mjs): the harness over the whole corpus with the js runner, as make verify
# runs it, stopping at the first failing verdict (--fail-fast: one failing vector kills a mutant). Stryker runs it
# in its sandbox copy of the repository, so `-m harness` and runners/js are the sandbox's: the runner started is
# the instrumented one, and __STRYKER_ACTIVE_MUTANT__ (inherited) picks the mutant. Exit 0 when nothing fails.
# The output Stryker keeps as a killed mutant's statusReason is the fail-fast line: the vector that killed it.
set -u
grep -q stryMutAct runners/js/codec.mjs || {
  echo "harness-test.sh: runners/js/codec.mjs in $(pwd) is not instrumented: run it from Stryker's sandbox" >&2; exit 2; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
# The plan cache is the repository's (STRYKER_CORPUS_CACHE, set by make mutation-stryker): a fresh sandbox's own
# would start cold. It is keyed by content, so a sandbox cannot be handed another corpus's plan.
/usr/bin/python3 -m harness verify --runners js --require 'format=*' --fail-fast --max-diagnoses 0 --out "$out" \
  --cache-dir "${STRYKER_CORPUS_CACHE:-out/.corpus-cache}" >"$out/log" 2>&1
rc=$?
[ "$rc" -eq 0 ] || grep -v '^harness: corpus: ' "$out/log"
exit "$rc"
