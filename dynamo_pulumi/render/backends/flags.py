"""Command-line surgery shared by the backends: finding flags, quoting tokens, injecting flags.

The operator rewrites a container's launch in one of two ways (rendering-core section 4):

* the first ``command`` element is a Python interpreter: flags are appended to ``args``, or, when
  a flag needs shell evaluation (Grove rank arithmetic, vLLM DP start rank), the whole line is
  re-issued as ``sh -c "exec ..."`` with every token quoted;
* anything else (typically ``sh -c "<script>"``): the flags are spliced into the first arg whose
  text holds ``python ... <framework> ...``, right after the token with the framework's last
  occurrence in that ``|&;``-free segment (ERRATA 28: the prefix match is greedy). Callers
  that name an executable (vLLM's ``ManualMP``: ``vllm serve``) also match a direct
  ``[exec ]vllm serve ...`` launch when no Python launch is found.

The operator uses Go's RE2 and ``strings.Fields``; the patterns below spell out Go's ASCII
``\\s`` / ``\\d`` and end-of-text ``$`` so Python's ``re`` matches exactly the same text.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any

from dynamo_pulumi.errors import RenderError

#: Go's ``\s`` (RE2, ASCII): tab, newline, form feed, carriage return, space.
_GO_SPACE = r"[\t\n\f\r ]"
#: Go's ``unicode.IsSpace``, which ``strings.Fields`` splits on and ``strings.TrimSpace`` trims.
_GO_SPACE_CHARS = (
    "\t\n\v\f\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008"
    "\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
)
_GO_FIELDS_SEPARATOR = re.compile(f"[{re.escape(_GO_SPACE_CHARS)}]+")
#: A Python interpreter: ``python``, ``python3``, ``python3.11``, optionally behind a path.
_PYTHON_COMMAND = re.compile(r"(?:.*/)?python[0-9]*(?:\.[0-9]+)*\Z")
#: Characters that make a token need double quotes inside ``sh -c`` (``shellQuoteForBashC``).
_BASH_C_SPECIAL = frozenset(" \t\n'\"\\{}[]$`!")
#: Tokens that are literal to the shell in every context (``shellQuotePOSIX``).
_POSIX_SAFE_TOKEN = re.compile(r"[A-Za-z0-9_@%+=:,./-]+\Z")


def fields(text: str) -> list[str]:
    """Split on whitespace the way Go's ``strings.Fields`` does."""
    return [part for part in _GO_FIELDS_SEPARATOR.split(text) if part]


def is_python_command(cmd: Any) -> bool:
    """Whether a ``command[0]`` is a Python interpreter (``python-config`` is not)."""
    return isinstance(cmd, str) and _PYTHON_COMMAND.match(cmd) is not None


def shell_quote_for_bash_c(token: str) -> str:
    """Double-quote a token that has shell-special characters; plain tokens pass unchanged.

    Inside the double quotes ``\\``, ``"``, ``$`` and backtick are backslash-escaped, and ``'``
    becomes ``'"'"'`` (the operator's escaping, kept byte for byte so the output matches).
    """
    if not any(ch in _BASH_C_SPECIAL for ch in token):
        return token
    escaped = (
        token.replace("\\", "\\\\")
        .replace('"', '\\"')
        .replace("$", "\\$")
        .replace("`", "\\`")
        .replace("'", "'\"'\"'")
    )
    return f'"{escaped}"'


def shell_quote_posix(token: str) -> str:
    """Single-quote a token unless it is shell-neutral; round-trips any argv token exactly."""
    if _POSIX_SAFE_TOKEN.match(token):
        return token
    return "'" + token.replace("'", "'\\''") + "'"


def text_tokens(values: Any, where: str) -> list[str]:
    """A command/args list as strings; an unresolved (non-string) token cannot be rewritten."""
    if values is None:
        return []
    if not isinstance(values, list):
        raise RenderError("must be a list of strings to rewrite the launch command", where)
    tokens: list[str] = []
    for i, value in enumerate(values):
        if not isinstance(value, str):
            raise RenderError(
                "must be a plain string: the backend rewrites this command line", f"{where}[{i}]"
            )
        tokens.append(value)
    return tokens


def expand_args(tokens: Iterable[Any]) -> list[str]:
    """Every whitespace-separated word of the string tokens (``getExpandedArgs``)."""
    words: list[str] = []
    for token in tokens:
        if isinstance(token, str):
            words.extend(fields(token))
    return words


def command_line(container: dict[str, Any]) -> list[Any]:
    """``command`` followed by ``args`` (either may be absent)."""
    return [*(container.get("command") or []), *(container.get("args") or [])]


def has_flag(words: Sequence[str], flag: str) -> bool:
    return flag in words


def has_arg(tokens: Sequence[Any], flag: str, value: str) -> bool:
    """``flag value`` or ``flag=value`` inside a token, or as two adjacent tokens (``hasArg``)."""
    joined, equals = f"{flag} {value}", f"{flag}={value}"
    for i, token in enumerate(tokens):
        if not isinstance(token, str):
            continue
        if joined in token or equals in token:
            return True
        if token == flag and i + 1 < len(tokens) and tokens[i + 1] == value:
            return True
    return False


def container_has_arg(container: dict[str, Any], flag: str, value: str) -> bool:
    """``containerHasArg``: looks at ``args`` only."""
    return has_arg(container.get("args") or [], flag, value)


def command_line_has_arg(container: dict[str, Any], flag: str, value: str) -> bool:
    """``containerCommandLineHasArg``: command + args, as given and split into words."""
    tokens = command_line(container)
    return has_arg(tokens, flag, value) or has_arg(expand_args(tokens), flag, value)


def flag_int_value(words: Sequence[str], flag: str) -> int:
    """The integer after the first ``flag`` whose next word parses; 1 when there is none.

    Like ``getFlagValue``: only the exact spelling counts (no ``=`` form, no short alias,
    ERRATA 29), and an unparsable value is skipped in favour of a later occurrence.
    """
    for i, word in enumerate(words):
        if word == flag and i + 1 < len(words):
            value = _parse_go_int64(words[i + 1])
            if value is not None:
                return value
    return 1


def _parse_go_int64(text: str) -> int | None:
    """``strconv.ParseInt(s, 10, 64)``: optional sign, ASCII digits, within int64."""
    if not re.fullmatch(r"[+-]?[0-9]+", text):
        return None
    value = int(text)
    return value if -(2**63) <= value < 2**63 else None


def _injection_pattern(framework: str) -> re.Pattern[str]:
    return re.compile(
        rf"(python[0-9.]*{_GO_SPACE}+[^|&;]*{re.escape(framework)}[^|&;]*?)({_GO_SPACE}|\Z|[|&;])"
    )


def inject_flags_into_python_command(arg: str, flags: str, framework: str) -> str:
    """Insert ``" " + flags`` after every ``python ... <framework>...`` match in a shell string."""
    return _injection_pattern(framework).sub(
        lambda m: f"{m.group(1)} {flags}{m.group(2)}", arg
    )


def _direct_injection_pattern(executable: str, subcommand: str) -> re.Pattern[str]:
    direct = f"{executable} {subcommand}".strip(_GO_SPACE_CHARS)
    return re.compile(
        rf"(^|{_GO_SPACE})((?:exec{_GO_SPACE}+)?{re.escape(direct)}(?:{_GO_SPACE}+[^|&;]*)?)"
        rf"({_GO_SPACE}|\Z|[|&;])"
    )


def inject_flags_into_direct_command(arg: str, flags: str, executable: str, subcommand: str) -> str:
    """Insert ``" " + flags`` after every ``[exec ]<executable> <subcommand> ...`` run in a shell
    string (``injectFlagsIntoDirectCommand``), e.g. ``vllm serve``, before any ``|&;``."""

    def insert(m: re.Match[str]) -> str:
        return f"{m.group(1)}{m.group(2).strip(_GO_SPACE_CHARS)} {flags}{m.group(3)}"

    return _direct_injection_pattern(executable, subcommand).sub(insert, arg)


def inject_flags(
    container: dict[str, Any],
    flags: str,
    needs_shell: bool,
    framework: str,
    *,
    executable: str = "",
    subcommand: str = "",
) -> None:
    """``injectFlagsIntoContainerCommand``: add ``flags`` to the container's launch in place.

    With ``executable`` (and ``subcommand``), an arg with no ``python ... <framework>`` launch is
    also searched for a direct ``<executable> <subcommand>`` launch (``vllm serve``).
    """
    command = container.get("command") or []
    if command and is_python_command(command[0]):
        if needs_shell:
            container["command"], container["args"] = ["sh", "-c"], [
                _exec_line(container, flags)
            ]
        elif fields(flags):
            container["args"] = [*(container.get("args") or []), *fields(flags)]
        return
    args = container.get("args")
    if not isinstance(args, list):
        return
    for i, arg in enumerate(args):
        if not isinstance(arg, str):
            continue
        modified = arg
        if framework:
            modified = inject_flags_into_python_command(arg, flags, framework)
        if modified == arg and executable:
            modified = inject_flags_into_direct_command(arg, flags, executable, subcommand)
        if modified != arg:
            args[i] = modified
            return


def is_shell_command(cmd: Any) -> bool:
    """``isShellCommand``: ``sh`` or ``bash``, bare or under ``/bin/``."""
    return isinstance(cmd, str) and cmd.removeprefix("/bin/") in ("sh", "bash")


def ensure_flag(
    container: dict[str, Any],
    flag: str,
    value: str,
    framework: str,
    *,
    executable: str = "",
    subcommand: str = "",
) -> None:
    """``EnsureFlagMutation``: make ``flag value`` part of the launch unless that exact pair is.

    Injected like any backend flag; when no launch is recognised, a non-shell command gets the
    pair appended to ``args``. A shell script whose launch cannot be found is a RenderError
    (the operator refuses it too), since the flag would silently be missing.
    """
    if command_line_has_arg(container, flag, value):
        return
    pair = f"{flag} {value}".strip(_GO_SPACE_CHARS)
    inject_flags(container, pair, False, framework, executable=executable, subcommand=subcommand)
    command = container.get("command") or []
    if not command_line_has_arg(container, flag, value) and (
        not command or not is_shell_command(command[0])
    ):
        container["args"] = [*(container.get("args") or []), flag, *([value] if value else [])]
    if not command_line_has_arg(container, flag, value):
        raise RenderError(f"could not add flag {flag!r} to the container command line", "args")


def quoted_command_line(container: dict[str, Any]) -> tuple[str, str]:
    """(quoted command, quoted args), each token through :func:`shell_quote_for_bash_c`."""
    command = text_tokens(container.get("command"), "command")
    args = text_tokens(container.get("args"), "args")
    return (
        " ".join(shell_quote_for_bash_c(t) for t in command),
        " ".join(shell_quote_for_bash_c(t) for t in args),
    )


def _exec_line(container: dict[str, Any], flags: str) -> str:
    cmd, args = quoted_command_line(container)
    if container.get("args"):
        return f"exec {cmd} {args} {flags}"
    return f"exec {cmd} {flags}"
