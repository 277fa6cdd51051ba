"""The depth-probe figure draws only the models the claims train (no model is trained for a figure alone)."""

from __future__ import annotations

import inspect
import re

from icl_verify.families import raw_probe


def test_figure_depths_are_depths_the_claims_probe():
    measures = [
        raw_probe.depth1_nearest_gd,
        raw_probe.depth1_nearest_gd_ilwd,
        raw_probe.depth2_nearer_ols,
        raw_probe.ols_gap_shrinks,
    ]
    claimed = {int(d) for m in measures for d in re.findall(r"probed\((\d+),", inspect.getsource(m))}
    assert claimed == {1, 2}
    assert set(raw_probe.FIGURE_DEPTHS) <= claimed
