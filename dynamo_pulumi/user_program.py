"""Run a user's Pulumi Python program offline, under our mocks, and collect the Dynamo graphs it deploys.

``dynamo-pulumi preview PROGRAM`` and ``diff`` take a program where they take a YAML file: a
``__main__.py`` (or any ``.py`` file), or a project directory with ``Pulumi.yaml``. The program
runs in-process exactly as the Pulumi language host would run it (its directory as the working
directory and on ``sys.path``, ``__name__ == "__main__"``, the project name and stack from
``Pulumi.yaml`` and ``--stack``, the stack's configuration from ``Pulumi.<stack>.yaml`` and
``--config key=value``), against :class:`dynamo_pulumi.program.cloud_mocks.CloudMocks`, so cloud
resources (EKS, GKE, IAM) get plausible placeholder outputs and nothing is called.

The graphs are the plans of the DynamoGraphDeployment components and standalone
DynamoComponentDeployment components the program constructs, in construction order, seen through
a stack transformation (the program need not return or export them).

A mistake is an :class:`InputError` with one clear message: no such file, no program in a
directory, a config entry that is not ``key=value``; an exception raised by the program is shown
with its own traceback, trimmed to the frames of the program's files (never ours or Pulumi's).
Errors of ours raised inside the program (an invalid graph) keep their class, so the CLI prints
them as for a YAML file.
"""

from __future__ import annotations

import contextlib
import os
import runpy
import sys
import traceback
import warnings
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import yaml

from dynamo_pulumi.errors import DynamoPulumiError, InputError
from dynamo_pulumi.floor.records import field, record

PROJECT_FILE = "Pulumi.yaml"
MAIN_FILE = "__main__.py"
DEFAULT_STACK = "dev"
#: What a ``secure:`` config value (encrypted by the stack's secrets provider) reads as offline.
SECRET_PLACEHOLDER = "offline-secret"


class ProgramError(InputError):
    """The user's program failed: its message, and its own traceback (trimmed to its frames)."""


@record
class Program:
    """Where a program is and what the Pulumi CLI would know about it."""

    main: Path
    directory: Path
    project: str
    #: ``config:`` defaults of ``Pulumi.yaml`` (project-level keys, as ``project:key``).
    defaults: Mapping[str, str] = field(default_factory=dict)


def looks_like_program(argument: str) -> bool:
    """Is this CLI argument a program (a ``.py`` file or a directory) rather than a YAML file?"""
    return argument.endswith(".py") or Path(argument).is_dir()


def _project_file(directory: Path) -> dict[str, Any]:
    path = directory / PROJECT_FILE
    if not path.is_file():
        return {}
    try:
        document = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
        raise InputError(f"cannot read the project file: {exc}", str(path)) from None
    return document if isinstance(document, dict) else {}


def _config_text(value: Any) -> str:
    """A config value as the Pulumi CLI hands it to a program: strings as they are, anything
    else as JSON, an encrypted value as a placeholder (the stack's key is not ours to use)."""
    import json

    if isinstance(value, dict) and set(value) == {"secure"}:
        return SECRET_PLACEHOLDER
    if isinstance(value, str):
        return value
    return json.dumps(value)


def _qualified(key: str, project: str) -> str:
    return key if ":" in key else f"{project}:{key}"


def _defaults(document: Mapping[str, Any], project: str) -> dict[str, str]:
    defaults = {}
    for key, spec in (document.get("config") or {}).items():
        value = spec.get("default") if isinstance(spec, dict) else spec
        if value is not None:
            defaults[_qualified(str(key), project)] = _config_text(value)
    return defaults


def resolve_program(argument: str) -> Program:
    """The program a CLI argument names (a directory needs ``Pulumi.yaml`` and its main file)."""
    path = Path(argument)
    if not path.exists():
        raise InputError("no such file or directory", argument)
    directory = path if path.is_dir() else path.parent
    document = _project_file(directory)
    if path.is_dir():
        if not document:
            raise InputError(f"is a directory without a {PROJECT_FILE}: give the program's .py file or its project directory", argument)
        main = directory / str(document.get("main") or MAIN_FILE)
        if main.is_dir():
            main = main / MAIN_FILE
        if not main.is_file():
            raise InputError(f"the project has no {main.relative_to(directory)} to run", argument)
    else:
        main = path
    project = str(document.get("name") or directory.resolve().name)
    return Program(main.resolve(), directory.resolve(), project, _defaults(document, project))


def stack_config(program: Program, stack: str, overrides: Sequence[str] = ()) -> dict[str, str]:
    """``Pulumi.yaml`` defaults, then ``Pulumi.<stack>.yaml``, then ``--config key=value``."""
    config = dict(program.defaults)
    stack_file = program.directory / f"Pulumi.{stack}.yaml"
    if stack_file.is_file():
        try:
            document = yaml.safe_load(stack_file.read_text(encoding="utf-8")) or {}
        except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
            raise InputError(f"cannot read the stack file: {exc}", str(stack_file)) from None
        for key, value in ((document.get("config") or {}) if isinstance(document, dict) else {}).items():
            config[_qualified(str(key), program.project)] = _config_text(value)
    for entry in overrides:
        key, sep, value = entry.partition("=")
        if not sep or not key:
            raise InputError(f"--config {entry!r}: expected key=value (e.g. aws:region=us-west-2)")
        config[_qualified(key, program.project)] = value
    return config


@contextlib.contextmanager
def _as_the_language_host(program: Program) -> Iterator[None]:
    """The program's directory as working directory and first on ``sys.path``; restored after
    (also the modules the program imported from its own directory, so a second program with a
    module of the same name gets its own)."""
    previous_cwd, previous_path = Path.cwd(), list(sys.path)
    previous_modules = set(sys.modules)
    os.chdir(program.directory)
    sys.path.insert(0, str(program.directory))
    try:
        yield
    finally:
        os.chdir(previous_cwd)
        sys.path[:] = previous_path
        for name in set(sys.modules) - previous_modules:
            module_file = getattr(sys.modules[name], "__file__", None) or ""
            ours = name.partition(".")[0] == "dynamo_pulumi"  # this package, even run from its own tree
            if module_file.startswith(str(program.directory) + os.sep) and not ours:
                del sys.modules[name]


def _user_traceback(exc: BaseException, program: Program) -> str:
    """The exception's traceback with only the frames of the program's own files."""
    root = str(program.directory) + os.sep
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename.startswith(root)
              and os.sep + "site-packages" + os.sep not in f.filename and os.sep + ".venv" + os.sep not in f.filename]
    lines = traceback.format_list(frames)
    return "".join(["Traceback (the program's frames):\n", *lines]) if lines else ""


def _program_error(exc: BaseException, program: Program) -> ProgramError:
    import pulumi

    message = str(exc) or type(exc).__name__
    if isinstance(exc, pulumi.RunError):
        return ProgramError(message, str(program.main))
    shown = _user_traceback(exc, program)
    text = f"the program raised {type(exc).__name__}: {message}"
    if isinstance(exc, ModuleNotFoundError) and exc.name:
        text += f"; {_missing_module_fix(exc.name, program)}"
    return ProgramError(f"{text}\n{shown}".rstrip(), str(program.main))


def _missing_module_fix(module: str, program: Program) -> str:
    """The program runs in dynamo-pulumi's own Python, so its SDKs must be installed there."""
    where = f"{sys.executable} -m pip install"
    requirements = program.directory / "requirements.txt"
    if requirements.is_file():
        return (f"the program runs in this Python ({sys.executable}), which lacks {module.split('.')[0]}: install "
                f"the program's requirements into it (cd {program.directory} && {where} -r requirements.txt)")
    return f"the program runs in this Python ({sys.executable}), which lacks {module.split('.')[0]}: {where} it"


@record(frozen=False)
class ProgramRun:
    """What a program registered (the recording) and the plans of the graphs it deployed."""

    recording: Any
    plans: list[Any]
    #: What the run ignored that the user gave (a stack without a stack file, a ``--config`` key
    #: the program never reads): warnings, since the Pulumi CLI would not stop for them either.
    notes: list[str] = field(default_factory=list)

    def graph(self, name: str) -> Any:
        """The plan of the graph (or standalone component) named ``name``."""
        for plan in self.plans:
            if plan.name == name:
                return plan
        raise KeyError(f"the program deploys no graph {name!r} (it deploys: {[p.name for p in self.plans]})")

    def gpus(self, name: str) -> dict[str, int | str]:
        """GPUs per component of the graph named ``name``, as ``preview`` counts them:
        ``"unknown"`` for a component whose count depends on a ``pulumi.Output`` not known at
        preview (under mocks an Output's value is known and counted)."""
        from dynamo_pulumi.diff.gpu_delta import UNKNOWN, gpu_delta

        return {c.component: UNKNOWN if c.after is None else c.after
                for c in gpu_delta(None, self.graph(name)).components}

    def log_lines(self) -> list[str]:
        """The program's own ``pulumi.log`` warnings and errors (the graphs' warnings, which the
        components log too, left out: ``preview`` prints them per graph)."""
        return program_log_lines(self.recording, self.plans)


def program_log_lines(recording: Any, plans: Sequence[Any]) -> list[str]:
    """``warning: ...``/``error: ...`` lines of what a run logged, without the graphs' own
    warnings (a component logs each as ``<Kind> <name>: <warning>``)."""
    ours = tuple(f"{p.kind} {p.name}: " for p in plans)
    return [f"{severity}: {message}" for severity, message in recording.logs
            if severity in ("warning", "error") and not (ours and message.startswith(ours))]


def run_user_program(program: Program, stack: str = DEFAULT_STACK, config: Mapping[str, str] | None = None,
                     mocks: Any = None) -> ProgramRun:
    """Run the program under mocks in preview mode; its graphs' plans in construction order."""
    import pulumi

    from dynamo_pulumi.mocks import Recording, run_program
    from dynamo_pulumi.program.cloud_mocks import CloudMocks
    from dynamo_pulumi.resources.components import DynamoComponentDeployment, DynamoGraphDeployment

    plans: list[Any] = []

    def collect(args: pulumi.ResourceTransformationArgs) -> None:
        resource = args.resource
        if isinstance(resource, DynamoGraphDeployment) or (
            isinstance(resource, DynamoComponentDeployment) and resource.plan.kind == "DynamoComponentDeployment"
        ):
            plans.append(resource.plan)

    def body() -> None:
        pulumi.runtime.register_stack_transformation(collect)  # type: ignore[arg-type]
        runpy.run_path(str(program.main), run_name="__main__")

    recording = Recording()
    with _as_the_language_host(program), warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # the cloud SDKs' own notices
        try:
            run_program(body, project=program.project, stack=stack, recording=recording, config=dict(config or {}),
                        mocks=mocks or CloudMocks(program.project, stack))
        except DynamoPulumiError:
            raise
        except SystemExit as exc:
            if exc.code not in (None, 0):
                raise _program_error(exc, program) from None
        except Exception as exc:  # the user's code failed: their message and frames, not ours
            raise _program_error(exc, program) from None
    from dynamo_pulumi.planning.settled import settle

    # The Outputs' values are known now (the run has resolved them): no stand-in is ever shown.
    return ProgramRun(recording, [settle(plan) for plan in plans])


def run_program_argument(argument: str, stack: str = DEFAULT_STACK, overrides: Sequence[str] = ()) -> ProgramRun:
    """A CLI argument naming a program: resolved, configured and run; with a note for a stack
    that has no stack file and for each ``--config`` key of the project the program never read."""
    from dynamo_pulumi.floor.records import replace

    program = resolve_program(argument)
    run = run_user_program(program, stack, stack_config(program, stack, overrides))
    return replace(run, notes=[*stack_notes(program, stack), *unread_config_notes(program, overrides, run.recording)])


def stack_notes(program: Program, stack: str) -> list[str]:
    """A stack other than the default one with no ``Pulumi.<stack>.yaml``: its config is only
    ``Pulumi.yaml``'s defaults and ``--config`` (a misspelt ``--stack`` would go unseen)."""
    if stack == DEFAULT_STACK or (program.directory / f"Pulumi.{stack}.yaml").is_file():
        return []
    from dynamo_pulumi.floor.suggest import did_you_mean

    stacks = sorted(p.name[len("Pulumi."):-len(".yaml")] for p in program.directory.glob("Pulumi.*.yaml"))
    found = f" (stack files here: {', '.join(f'Pulumi.{s}.yaml' for s in stacks)})" if stacks else ""
    return [f"--stack {stack}: there is no Pulumi.{stack}.yaml beside the program, so its config is only "
            f"Pulumi.yaml's defaults and --config{found}{did_you_mean(stack, stacks)}"]


def unread_config_notes(program: Program, overrides: Sequence[str], recording: Any) -> list[str]:
    """``--config key=value`` of the project that the program never looked up. Keys of other
    namespaces (``aws:region``, ``kubernetes:context``) are read by providers, not the program."""
    from dynamo_pulumi.floor.suggest import did_you_mean

    read = sorted(k.split(":", 1)[1] for k in recording.config_read if k.startswith(f"{program.project}:"))
    notes = []
    for entry in overrides:
        key = _qualified(entry.partition("=")[0], program.project)
        if key.startswith(f"{program.project}:") and key not in recording.config_read:
            short = key.split(":", 1)[1]
            shown = f" (it reads: {', '.join(read)})" if read else " (it reads no config of its own)"
            notes.append(f"--config {entry}: the program never reads {key}{shown}{did_you_mean(short, read)}")
    return notes


def preview_program(
    path: str | os.PathLike[str], stack: str = DEFAULT_STACK, config: Mapping[str, str] | None = None
) -> ProgramRun:
    """Run a Pulumi program (its ``.py`` file or project directory) under mocks, as
    ``dynamo-pulumi preview PROGRAM`` does: for a user's own pytest tests. ``config`` adds stack
    config values (``{"decodeReplicas": "4"}``; a key without ``project:`` is the project's)."""
    overrides = [f"{key}={value}" for key, value in (config or {}).items()]
    return run_program_argument(os.fspath(path), stack, overrides)
