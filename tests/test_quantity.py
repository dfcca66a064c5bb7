"""Quantities converted from v1alpha1 are spelled the way Go re-serializes a parsed Quantity."""

from __future__ import annotations

import pytest

from dynamo_pulumi.api.quantity import canonical_quantity, quantity_format


@pytest.mark.parametrize(
    ("given", "canonical"),
    [
        ("1000m", "1"),
        ("1.5", "1500m"),
        ("0.1", "100m"),
        ("1000", "1k"),
        ("8000M", "8G"),
        ("130", "130"),
        ("0", "0"),
        ("0Gi", "0"),
        (4, "4"),
        ("-1", "-1"),
    ],
)
def test_decimal_quantities_drop_trailing_zeros_into_the_suffix(given: str | int, canonical: str) -> None:
    assert canonical_quantity(given) == canonical


@pytest.mark.parametrize(
    ("given", "canonical"),
    [("1024Mi", "1Gi"), ("0.5Gi", "512Mi"), ("80Gi", "80Gi"), ("1000Ki", "1000Ki"), ("1.5Ki", "1536")],
)
def test_binary_quantities_use_the_largest_exact_binary_suffix(given: str, canonical: str) -> None:
    assert canonical_quantity(given) == canonical


def test_binary_quantity_below_1024_becomes_decimal() -> None:
    assert canonical_quantity("0.5Ki") == "512"


def test_fractional_binary_quantity_becomes_decimal_si() -> None:
    assert canonical_quantity("0.1Ki") == "102400m"


def test_exponent_format_is_kept() -> None:
    assert canonical_quantity("1e3") == "1e3"
    assert canonical_quantity("12e6") == "12e6"


def test_precision_below_nano_rounds_up() -> None:
    assert canonical_quantity("0.5n") == "1n"


def test_unparsable_quantity_raises_value_error() -> None:
    with pytest.raises(ValueError):
        canonical_quantity("lots")


@pytest.mark.parametrize(("given", "fmt"), [("1Gi", "BinarySI"), ("1e3", "DecimalExponent"), ("1k", "DecimalSI")])
def test_format_follows_the_suffix(given: str, fmt: str) -> None:
    assert quantity_format(given) == fmt
