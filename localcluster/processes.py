"""Child processes of the local cluster: started in their own session, logged, stopped for sure.

Every process gets its own process group so that stopping it also stops whatever it forked, and
a log file under the cluster's directory (the first place to look when a component will not come
up). ``stop`` sends SIGTERM, waits, then SIGKILLs the group: a test that started a cluster must
leave no process behind, whatever state the component is in.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path


def free_port() -> int:
    """A TCP port free on 127.0.0.1 now (the kernel's choice; the caller binds it right after)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class Child:
    """One started component: its name, its process and its log."""

    name: str
    process: subprocess.Popen[bytes]
    log: Path

    @property
    def pid(self) -> int:
        return self.process.pid

    def alive(self) -> bool:
        return self.process.poll() is None

    def tail(self, lines: int = 25) -> str:
        """The end of the component's log, to explain why it stopped or never became ready."""
        try:
            text = self.log.read_text(errors="replace")
        except OSError:
            return ""
        return "\n".join(text.splitlines()[-lines:])


@dataclass
class Children:
    """The components of one cluster, stopped in the reverse order of their start."""

    log_dir: Path
    started: list[Child] = field(default_factory=list)

    def start(self, name: str, argv: Sequence[str], env: Mapping[str, str] | None = None) -> Child:
        self.log_dir.mkdir(parents=True, exist_ok=True)
        log = self.log_dir / f"{name}.log"
        with log.open("ab") as out:
            process = subprocess.Popen(
                list(argv), stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                env=dict(env) if env is not None else None, start_new_session=True,
            )
        child = Child(name=name, process=process, log=log)
        self.started.append(child)
        return child

    def stop(self, grace: float = 10.0) -> None:
        for child in reversed(self.started):
            stop_group(child.pid, grace, reap=child.process.poll)
        self.started.clear()

    def stop_one(self, child: Child, grace: float = 10.0) -> None:
        """Stop one component started here (a controller restarted with other settings)."""
        stop_group(child.pid, grace, reap=child.process.poll)
        if child in self.started:
            self.started.remove(child)


def stop_group(pid: int, grace: float = 10.0, reap: Callable[[], object] | None = None) -> None:
    """SIGTERM the process group of ``pid``, then SIGKILL it if it is still there after ``grace``.

    ``reap`` collects the leader's exit status when the leader is our child: until it is reaped,
    a finished leader is a zombie that still counts as a member of its group.
    """
    for sig, wait in ((signal.SIGTERM, grace), (signal.SIGKILL, 5.0)):
        try:
            os.killpg(pid, sig)
        except ProcessLookupError:
            return
        deadline = time.monotonic() + wait
        while time.monotonic() < deadline:
            if reap is not None:
                reap()
            if not _group_alive(pid):
                return
            time.sleep(0.05)


def _group_alive(pid: int) -> bool:
    try:
        os.killpg(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
