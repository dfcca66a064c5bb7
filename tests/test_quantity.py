"""Quantities converted from v1alpha1 are spelled the way Go re-serializes a parsed Quantity."""

from __future__ import annotations

from decimal import Decimal

import pytest

from dynamo_pulumi.api.quantity import canonical_quantity, parse_quantity, quantity_format


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


@pytest.mark.parametrize(
    ("given", "value"),
    [
        ("200Mi", Decimal(200 * 1024**2)),
        ("1.5", Decimal("1.5")),
        ("100m", Decimal("0.1")),
        ("1e3", Decimal(1000)),
        ("2E-3", Decimal("0.002")),
        ("+4k", Decimal(4000)),
        ("-1", Decimal(-1)),
        (".5Gi", Decimal(512 * 1024**2)),
        ("3n", Decimal("3e-9")),
        (4, Decimal(4)),
        (0.5, Decimal("0.5")),
    ],
)
def test_parse_quantity_follows_the_kubernetes_grammar(given: str | int | float, value: Decimal) -> None:
    assert parse_quantity(given) == value


@pytest.mark.parametrize("given", ["", "Gi", "1GiB", "1ki", "1 Gi", "nan", "inf", "1e", "1.2.3", True, float("nan")])
def test_parse_quantity_refuses_what_the_api_server_refuses(given: object) -> None:
    with pytest.raises(ValueError):
        parse_quantity(given)


def test_parse_quantity_of_an_absurd_exponent_is_a_value_error_not_an_overflow() -> None:
    with pytest.raises(ValueError):
        parse_quantity("1e999999999999")
