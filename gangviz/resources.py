"""Where gangviz finds its bundled files (built-in scenarios, sample workloads, the papers'
published tables)."""

from __future__ import annotations

from pathlib import Path

RESOURCES = Path(__file__).resolve().parent.parent / "resources"
SCENARIOS = RESOURCES / "scenarios"
#: the papers' published tables that the reproductions compare with
PAPERS = RESOURCES / "papers"


def scenario_path(name: str) -> Path:
    """Return the path of a built-in scenario.

    ``name`` is a file stem such as ``"fig2-repacking"`` (with or without ``.toml``).
    Raises ``FileNotFoundError`` naming the available scenarios when there is no such file.
    """
    stem = name[:-5] if name.endswith(".toml") else name
    path = SCENARIOS / f"{stem}.toml"
    if not path.is_file():
        known = ", ".join(sorted(p.stem for p in SCENARIOS.glob("*.toml"))) or "none"
        raise FileNotFoundError(f"no built-in scenario {name!r}; available: {known}")
    return path


def list_scenarios() -> list[Path]:
    """Return the built-in scenario files, sorted by name."""
    return sorted(SCENARIOS.glob("*.toml"))
