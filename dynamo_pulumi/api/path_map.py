"""Where each converted v1beta1 field came from in the v1alpha1 object the user wrote.

The operator reports some admission errors of an alpha request at alpha paths; the conversion
records ``beta path -> alpha path`` for every field it moves, and :class:`PathMap` answers for
any beta path through its longest recorded prefix (``spec.components[2].podTemplate.spec.
containers[0].image`` -> ``spec.services[Worker].extraPodSpec.mainContainer.image``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping

from dynamo_pulumi.errors import FieldError
from dynamo_pulumi.floor.records import replace


class PathMap(Mapping[str, str]):
    """beta field path -> alpha field path; unlisted paths map through their longest listed prefix."""

    def __init__(self) -> None:
        self._entries: dict[str, str] = {}

    def add(self, beta_path: str, alpha_path: str) -> None:
        self._entries[beta_path] = alpha_path

    def __getitem__(self, key: str) -> str:
        return self._entries[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._entries)

    def __len__(self) -> int:
        return len(self._entries)

    def alpha_path(self, beta_path: str) -> str:
        """Where the user wrote what ``beta_path`` names (``beta_path`` itself when unmapped)."""
        cut = len(beta_path)
        while cut > 0:
            prefix = beta_path[:cut]
            if prefix in self._entries:
                return self._entries[prefix] + beta_path[cut:]
            cut = max(beta_path.rfind(".", 0, cut), beta_path.rfind("[", 0, cut))
        return beta_path

    def map_error(self, error: FieldError) -> FieldError:
        """The error at its alpha path (schema details that quote the path follow it)."""
        alpha_path = self.alpha_path(error.path)
        detail = error.detail.replace(f"{error.path} in body", f"{alpha_path} in body")
        return replace(error, path=alpha_path, detail=detail)



class Recorder:
    """Records ``beta_base.<sub> -> alpha_base.<sub>`` pairs into a PathMap."""

    def __init__(self, paths: PathMap, beta_base: str, alpha_base: str) -> None:
        self.paths, self.beta_base, self.alpha_base = paths, beta_base, alpha_base
        paths.add(beta_base, alpha_base)

    def __call__(self, beta_sub: str, alpha_sub: str) -> None:
        self.paths.add(_join(self.beta_base, beta_sub), _join(self.alpha_base, alpha_sub))

    def sub(self, beta_sub: str) -> Callable[[str, str], None]:
        return lambda b, a: self(_join(beta_sub, b), a)


def _join(base: str, sub: str) -> str:
    if not sub:
        return base
    if not base or sub.startswith("["):
        return base + sub
    return f"{base}.{sub}"
