"""A small warehouse inventory: stock levels, reservations and reorder suggestions.

The module keeps everything in memory and has no dependencies beyond the standard
library, so it can be used in scripts and tests alike. Quantities are whole units.
"""

from __future__ import annotations

import functools
import logging
from collections import defaultdict
from dataclasses import dataclass
from datetime import date

log = logging.getLogger(__name__)

DEFAULT_REORDER_POINT = 10
DEFAULT_REORDER_QUANTITY = 50
MAX_RESERVATION_DAYS = 14


def audited(func):
    """Log every call of an inventory operation with its arguments."""

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        log.info("%s args=%r kwargs=%r", func.__qualname__, args, kwargs)
        return func(*args, **kwargs)

    return wrapper


@dataclass
class Item:
    """One stock-keeping unit and how many of it are on the shelf."""

    sku: str
    name: str
    on_hand: int = 0
    reorder_point: int = DEFAULT_REORDER_POINT
    reorder_quantity: int = DEFAULT_REORDER_QUANTITY


@dataclass
class Reservation:
    """Units set aside for an order that has not shipped yet."""

    sku: str
    quantity: int
    until: date


@audited
def parse_sku(raw: str) -> str:
    """Normalise a SKU typed by a person: trim it, upper-case it, drop inner spaces."""
    sku = "".join(raw.split()).upper()
    if not sku:
        raise ValueError("empty SKU")
    return sku


CATEGORY_PREFIXES = {
    "HW": "hardware",
    "EL": "electrical",
    "PL": "plumbing",
}


class Inventory:
    """Stock levels and reservations for one warehouse."""

    def __init__(self, name: str) -> None:
        self.name = name
        self._items: dict[str, Item] = {}
        self._reservations: dict[str, list[Reservation]] = defaultdict(list)

    def add_item(self, item: Item) -> None:
        """Register a new SKU; adding one that already exists is an error."""
        if item.sku in self._items:
            raise KeyError(f"{item.sku} is already registered")
        self._items[item.sku] = item

    @audited
    def receive(self, sku: str, quantity: int) -> int:
        """Book a delivery and return the new quantity on hand."""
        if quantity <= 0:
            raise ValueError("a delivery must contain at least one unit")
        item = self._items[sku]
        item.on_hand += quantity
        return item.on_hand

    def reserved(self, sku: str, today: date) -> int:
        """Units of ``sku`` held by reservations that are still valid on ``today``."""
        return sum(r.quantity for r in self._reservations[sku] if r.until >= today)

    def available(self, sku: str, today: date) -> int:
        """Units that can still be promised to a new order."""
        return self._items[sku].on_hand - self.reserved(sku, today)

    @audited
    def reserve(self, sku: str, quantity: int, today: date, days: int = 3) -> Reservation:
        """Hold ``quantity`` units for ``days`` days, if that many are available."""
        if not 0 < days <= MAX_RESERVATION_DAYS:
            raise ValueError(f"a reservation lasts 1 to {MAX_RESERVATION_DAYS} days")
        if quantity > self.available(sku, today):
            raise ValueError(f"only {self.available(sku, today)} units of {sku} available")
        until = date.fromordinal(today.toordinal() + days)
        reservation = Reservation(sku, quantity, until)
        self._reservations[sku].append(reservation)
        return reservation

    def reorder_suggestions(self, today: date) -> dict[str, int]:
        """SKUs whose available stock is at or below their reorder point, with amounts."""
        return {
            sku: item.reorder_quantity
            for sku, item in sorted(self._items.items())
            if self.available(sku, today) <= item.reorder_point
        }


def category_of(sku: str) -> str:
    """The category a SKU belongs to, from its two-letter prefix."""
    return CATEGORY_PREFIXES.get(sku[:2], "other")


if __name__ == "__main__":
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(message)s")
    store = Inventory("north")
    store.add_item(Item(parse_sku(" hw 1001 "), "Hinge, brass, 75 mm", on_hand=40))
    store.add_item(Item("EL2040", "Cable clip, 8 mm", on_hand=12, reorder_point=20))
    store.reserve("HW1001", 35, date(2024, 3, 1))
    for sku, amount in store.reorder_suggestions(date(2024, 3, 1)).items():
        print(f"reorder {amount} x {sku} ({category_of(sku)})")
