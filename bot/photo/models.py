"""Our own ONNX models (the classifier, the locator), loaded once each with onnxruntime (the
photo extra) and run one call at a time."""

from __future__ import annotations

import threading
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from onnxruntime import InferenceSession


@dataclass(frozen=True)
class Model:
    session: InferenceSession
    lock: threading.Lock

    def run(self, name: str, x: np.ndarray) -> np.ndarray:
        """The model's first output for input `name` = x."""
        with self.lock:
            return self.session.run(None, {name: x})[0]


@cache
def model(path: Path) -> Model:
    import onnxruntime  # the photo extra; detect.py checks it is there before any call

    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = 2
    session = onnxruntime.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
    return Model(session, threading.Lock())
