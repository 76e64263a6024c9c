"""A malformed price in [cost.prices] is a one-line settings error at load time; it used to pass and
then fail every row of a run after the model calls had been made."""

from __future__ import annotations

import pytest

from autofill.errors import InputError
from autofill.settings import load_settings


@pytest.mark.parametrize("price", ['"0.1"', "[0.1]", "[0.1, 0.2, 0.3]", '[0.1, "x"]', "[-1, 2]"])
def test_malformed_price_is_a_settings_error(tmp_path, price):
    cfg = tmp_path / "prices.toml"
    cfg.write_text(f'[cost.prices]\n"gpt-4o-mini" = {price}\n')
    with pytest.raises(InputError, match="cost.prices"):
        load_settings(tmp_path, [cfg], environ={})


def test_well_formed_prices_load(tmp_path):
    cfg = tmp_path / "prices.toml"
    cfg.write_text('[cost.prices]\n"gpt-4.1-mini" = [0.40, 1.60]\n"local-model" = [0, 0]\n')
    settings = load_settings(tmp_path, [cfg], environ={})
    assert settings.cost.prices["gpt-4.1-mini"] == [0.40, 1.60]
