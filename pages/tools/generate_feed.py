#!/usr/bin/env python3
"""Generates pages/feed.json, the long paginated "Discover" feed of the sample shop.

Deterministic: no randomness, no clock. The same script always writes the same bytes, so re-running it after an
edit shows a reviewable diff. 48 sections of 5 widgets (4 product cards and a "see all" row) = 240 widgets,
served 5 sections per chunk (`server.pageSize`).

Usage: python3 pages/tools/generate_feed.py            # writes pages/feed.json next to this folder
       python3 pages/tools/generate_feed.py --check    # exits 1 when pages/feed.json is out of date
"""
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from pagejson import dumps  # noqa: E402

OUTPUT = pathlib.Path(__file__).resolve().parent.parent / "feed.json"
SECTIONS = 48
CARDS_PER_SECTION = 4
PAGE_SIZE = 5

COLLECTIONS = [
    ("Morning coffee", "morning-coffee"), ("Slow cooking", "slow-cooking"), ("Baking day", "baking-day"),
    ("The tea shelf", "tea-shelf"), ("Table linen", "table-linen"), ("Knife skills", "knife-skills"),
    ("Pantry order", "pantry-order"), ("Outdoor dining", "outdoor-dining"), ("Small spaces", "small-spaces"),
    ("Gifts under €30", "gifts-under-30"), ("Fermentation", "fermentation"), ("Bar cart", "bar-cart"),
]
PRODUCTS = [  # (object, materials it comes in)
    ("Mug", ["Stoneware", "Enamel", "Porcelain"]), ("Serving Bowl", ["Stoneware", "Oak", "Walnut", "Glass"]),
    ("Tea Towel", ["Linen", "Waffle Cotton"]), ("Saucepan", ["Copper", "Enamel", "Stainless Steel"]),
    ("Pie Dish", ["Stoneware", "Enamel", "Glass"]), ("Salad Servers", ["Oak", "Walnut", "Olive Wood"]),
    ("Carafe", ["Glass", "Stoneware"]), ("Trivet", ["Cast Iron", "Cork", "Oak"]),
    ("Butter Dish", ["Porcelain", "Glass", "Oak"]), ("Spice Jar", ["Glass", "Stoneware"]),
    ("Serving Tray", ["Walnut", "Oak", "Enamel"]), ("Ladle", ["Olive Wood", "Copper"]),
    ("Colander", ["Enamel", "Stainless Steel"]), ("Bread Bin", ["Enamel", "Oak"]),
    ("Milk Jug", ["Stoneware", "Enamel", "Porcelain"]), ("Utensil Pot", ["Stoneware", "Porcelain"]),
]
COLOURED = {"Stoneware", "Enamel", "Porcelain", "Linen", "Waffle Cotton"}
COLOURS = ["Sand", "Moss", "Charcoal", "Clay", "Ivory", "Indigo", "Rust"]


def euros(cents):
    return f"€{cents // 100}.{cents % 100:02d}"


def product(number):
    """The product at position `number` (0-based) of the feed, derived from the number alone."""
    thing, materials = PRODUCTS[(number * 7) % len(PRODUCTS)]
    material = materials[(number // len(PRODUCTS)) % len(materials)]
    title = f"{material} {thing}"
    if material in COLOURED:
        title += f", {COLOURS[(number * 3) % len(COLOURS)]}"
    product_id = f"p-{7001 + number}"
    cents = 990 + (number * 1373) % 8000
    cents -= cents % 10  # prices end in 0
    card = {
        "id": f"feed.card.{product_id}",
        "type": "product_card",
        "content": {
            "title": title,
            "price": euros(cents),
            "imageURL": f"https://img.example.com/products/{product_id}/card.jpg",
        },
        "actions": {
            "tap": {"type": "open_bottom_sheet", "pageID": "product", "parameters": {"productID": product_id}}
        },
    }
    if number % 11 == 3:
        card["content"]["badge"] = "−20%"
    elif number % 7 == 0:
        card["content"]["badge"] = "New"
    return card


def section(index):
    name, slug = COLLECTIONS[index % len(COLLECTIONS)]
    week = index // len(COLLECTIONS) + 1
    section_id = f"feed.s{index + 1:02d}"
    widgets = [product(index * CARDS_PER_SECTION + offset) for offset in range(CARDS_PER_SECTION)]
    widgets.append({
        "id": f"{section_id}.seeAll",
        "type": "list_row",
        "content": {"title": f"See all in {name}", "subtitle": f"Week {week} selection", "trailing": "›"},
        "actions": {"tap": {"type": "deeplink", "url": f"larder://collections/{slug}?week={week}"}},
    })
    return {"id": section_id, "title": f"{name} · week {week}", "widgets": widgets}


def feed():
    return {
        "$schema": "../schema/page-file.schema.json",
        "schemaVersion": 1,
        "kind": "page",
        "page": {
            "id": "feed",
            "title": "Discover",
            "header": [{
                "id": "feed.intro",
                "type": "text",
                "content": {"text": "Fresh finds from our makers, picked by the Larder team.", "style": "subtitle"},
            }],
            "sections": [section(index) for index in range(SECTIONS)],
        },
        "server": {"pageSize": PAGE_SIZE, "cacheControl": "public, max-age=300"},
    }


if __name__ == "__main__":
    text = dumps(feed())
    if "--check" in sys.argv[1:]:
        current = OUTPUT.read_text(encoding="utf-8") if OUTPUT.exists() else ""
        if current != text:
            sys.exit(f"{OUTPUT} is out of date: run python3 pages/tools/generate_feed.py")
    else:
        OUTPUT.write_text(text, encoding="utf-8")
