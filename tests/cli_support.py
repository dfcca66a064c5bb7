"""Graphs and helpers shared by the CLI test modules."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from dynamo_pulumi.cli import main

REPO = Path(__file__).resolve().parent.parent
IMAGE = "nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.4.0"

#: replicas of the worker is on line 17, column 7; the frontend's image on line 11, column 15.
BETA = f"""\
apiVersion: nvidia.com/v1beta1
kind: DynamoGraphDeployment
metadata:
  name: beta
spec:
  backendFramework: vllm
  components:
    - name: frontend
      type: frontend
      podTemplate:
        spec:
          containers:
            - name: main
              image: {IMAGE}
    - name: worker
      type: worker
      replicas: 2
      podTemplate:
        spec:
          containers:
            - name: main
              image: {IMAGE}
"""

#: The Frontend service is on line 7, column 5; its image on line 11, column 18.
ALPHA = f"""\
apiVersion: nvidia.com/v1alpha1
kind: DynamoGraphDeployment
metadata:
  name: alpha
spec:
  services:
    Frontend:
      componentType: frontend
      extraPodSpec:
        mainContainer:
          image: {IMAGE}
"""


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def run_process(*argv: str, stdin: str | None = None, seed: str = "0") -> subprocess.CompletedProcess[str]:
    """The command as a process (``python -m dynamo_pulumi``), with a chosen hash seed."""
    env = dict(os.environ, PYTHONHASHSEED=seed)
    return subprocess.run(
        [sys.executable, "-m", "dynamo_pulumi", *argv],
        input=stdin, capture_output=True, text=True, cwd=REPO, env=env, timeout=300, check=False,
    )


def write(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)
