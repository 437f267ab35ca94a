"""Finds runners: runners/<name>/runner.json gives the command (run with cwd runners/<name>); --command overrides."""

import difflib
import json
import re
import shlex
from dataclasses import dataclass
from pathlib import Path


class ConfigError(Exception):
    pass


# A runner's name becomes file names (out/<name>.stderr.log, badges/<name>.json) and a directory (runners/<name>):
# nothing in it may climb out of a directory or need quoting. ci/gate.sh checks RUNNER_NAME the same way.
NAME = re.compile(r"[a-z0-9][a-z0-9_-]*")


def check_name(name, where="runner name"):
    if not NAME.fullmatch(name):
        raise ConfigError(f"{where} {name!r}: a runner name is lower-case letters, digits, '_' and '-', starting with "
                          f"a letter or digit (^[a-z0-9][a-z0-9_-]*$)")
    return name


@dataclass
class RunnerConfig:
    name: str
    argv: list
    cwd: str
    expected_failures: Path    # may not exist: then nothing is expected to fail


def known_runners(runners_dir):
    return sorted(p.parent.name for p in Path(runners_dir).glob("*/runner.json"))


def parse_overrides(items, option="--command", what=None):
    """--command NAME=SHELL-WORDS (repeatable) -> {name: argv}; with `what`, NAME=VALUE -> {name: value}."""
    out = {}
    for item in items or ():
        name, sep, words = item.partition("=")
        value = (words if what else shlex.split(words)) if sep else None
        if not name or not value:
            raise ConfigError(f"{option} {item!r}: expected NAME={what or repr('program arg ...')}")
        check_name(name, f"{option} {item!r}:")
        out[name] = value
    return out


def resolve(names, runners_dir, overrides, expected_failures=None):
    runners_dir = Path(runners_dir)
    known = known_runners(runners_dir)
    configs = []
    for name in names:
        check_name(name)
        directory = runners_dir / name
        if name in overrides:
            argv = overrides[name]
        elif name in known:
            argv = _read_command(directory / "runner.json")
        else:
            have = ", ".join(known) or "none"
            close = difflib.get_close_matches(name, known, n=1)
            hint = f"did you mean '{close[0]}'? " if close else ""
            raise ConfigError(f"unknown runner '{name}' ({hint}known runners in {runners_dir}: {have}; "
                              f"or give its command with --command {name}='...')")
        cwd = directory if directory.is_dir() else Path.cwd()
        listing = Path(expected_failures[name]) if name in (expected_failures or {}) else directory / "expected-failures.txt"
        if name in (expected_failures or {}) and not listing.is_file():
            raise ConfigError(f"--expected-failures {name}={listing}: no such file")
        configs.append(RunnerConfig(name, argv, str(cwd), listing))
    unknown = sorted(set(expected_failures or {}) - set(names))
    if unknown:
        raise ConfigError(f"--expected-failures for {', '.join(unknown)}: not among --runners {', '.join(names)}")
    return configs


def from_args(args):
    """The runners a verify command line names: --runners, with --runners-dir, --command, --expected-failures."""
    names = list(dict.fromkeys(n.strip() for n in args.runners.split(",") if n.strip()))
    return resolve(names, args.runners_dir, parse_overrides(args.command),
                   parse_overrides(args.expected_failures, "--expected-failures", "FILE"))


def _read_command(path):
    try:
        with open(path, encoding="utf-8") as f:
            command = json.load(f).get("command")
    except (OSError, json.JSONDecodeError, AttributeError) as e:
        raise ConfigError(f"{path}: cannot read the runner command: {e}") from None
    if not (isinstance(command, list) and command and all(isinstance(w, str) for w in command)):
        raise ConfigError(f'{path}: expected {{"command": ["program", "arg", ...]}}')
    return command
