"""chunkviz/ui/columns.py without a page: the run time limit and where it comes from."""

from __future__ import annotations

import pytest

from chunkviz.core.errors import ChunkvizError
from chunkviz.ui.columns import RUN_TIME_LIMIT_ENV, RUN_TIME_LIMIT_S, run_time_limit_s


def test_the_run_time_limit_is_60_s_unless_the_environment_says_otherwise(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(RUN_TIME_LIMIT_ENV, raising=False)
    assert run_time_limit_s() == RUN_TIME_LIMIT_S == 60
    monkeypatch.setenv(RUN_TIME_LIMIT_ENV, " 300 ")
    assert run_time_limit_s() == 300.0
    monkeypatch.setenv(RUN_TIME_LIMIT_ENV, "")
    assert run_time_limit_s() == 60


@pytest.mark.parametrize("given", ["0", "-5", "soon", "nan", "inf"])
def test_a_run_time_limit_that_is_not_a_positive_number_says_what_to_do(
    monkeypatch: pytest.MonkeyPatch, given: str
) -> None:
    monkeypatch.setenv(RUN_TIME_LIMIT_ENV, given)
    with pytest.raises(ChunkvizError, match=f"{RUN_TIME_LIMIT_ENV}=.* is not a number of seconds above 0; unset it"):
        run_time_limit_s()
