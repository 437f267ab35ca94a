"""Finds runners: runners/<name>/runner.json gives the command (run with cwd runners/<name>); --command overrides."""

import json
import shlex
from dataclasses import dataclass
from pathlib import Path


class ConfigError(Exception):
    pass


@dataclass
class RunnerConfig:
    name: str
    argv: list
    cwd: str
    expected_failures: Path    # may not exist: then nothing is expected to fail


def known_runners(runners_dir):
    return sorted(p.parent.name for p in Path(runners_dir).glob("*/runner.json"))


def parse_overrides(items):
    """--command NAME=SHELL-WORDS (repeatable) -> {name: argv}."""
    out = {}
    for item in items or ():
        name, sep, words = item.partition("=")
        argv = shlex.split(words) if sep else []
        if not name or not argv:
            raise ConfigError(f"--command {item!r}: expected NAME='program arg ...'")
        out[name] = argv
    return out


def resolve(names, runners_dir, overrides):
    runners_dir = Path(runners_dir)
    known = known_runners(runners_dir)
    configs = []
    for name in names:
        directory = runners_dir / name
        if name in overrides:
            argv = overrides[name]
        elif name in known:
            argv = _read_command(directory / "runner.json")
        else:
            have = ", ".join(known) or "none"
            raise ConfigError(f"unknown runner '{name}' (known runners in {runners_dir}: {have}; "
                              f"or give its command with --command {name}='...')")
        cwd = directory if directory.is_dir() else Path.cwd()
        configs.append(RunnerConfig(name, argv, str(cwd), directory / "expected-failures.txt"))
    return configs


def _read_command(path):
    try:
        with open(path, encoding="utf-8") as f:
            command = json.load(f).get("command")
    except (OSError, json.JSONDecodeError, AttributeError) as e:
        raise ConfigError(f"{path}: cannot read the runner command: {e}") from None
    if not (isinstance(command, list) and command and all(isinstance(w, str) for w in command)):
        raise ConfigError(f'{path}: expected {{"command": ["program", "arg", ...]}}')
    return command
