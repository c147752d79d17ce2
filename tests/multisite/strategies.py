"""Hypothesis strategies shared by the multi-site tests."""

from hypothesis import strategies as st

from gangviz.multisite.config import MultiSiteConfig


@st.composite
def configs(draw, migrate=None):
    """Draw a small, random MultiSiteConfig."""
    procs = draw(st.integers(1, 6))
    return MultiSiteConfig(
        sites=draw(st.integers(1, 3)),
        procs=procs,
        arrival_rate=draw(st.sampled_from([0.3, 0.8, 1.5, 3.0])),
        size_dist=draw(st.sampled_from(["normal", "uniform"])),
        sigma=draw(st.sampled_from([1.0, 3.0])),
        migrate=draw(st.booleans()) if migrate is None else migrate,
        aging_k=draw(st.integers(1, 3)),
        afcfs_overtake=draw(st.booleans()),
        local_overhead=draw(st.sampled_from([0.0, 0.05, 0.3])),
        grid_overhead=draw(st.sampled_from([0.0, 0.1, 0.5])),
    )
