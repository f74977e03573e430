"""Write the binary sample documents: chunkviz/sample_docs/volunteer_briefing.pptx (a short deck) and
chunkviz/sample_docs/station_log.xlsx (a three-sheet workbook).

Their content is here, so the samples are reproducible: run ``python scripts/make_office_samples.py``
(python-pptx and openpyxl, the ``formats`` extra) after changing it, then check the questions in
chunkviz/sample_docs/questions/ still quote the text as read (tests/test_evaluation_questions.py).
The files are written with fixed timestamps, so the same content gives the same bytes.
"""

from __future__ import annotations

import datetime
import io
import re
import sys
import zipfile
from pathlib import Path
from typing import Any

SAMPLES = Path(__file__).resolve().parent.parent / "chunkviz" / "sample_docs"
#: The time every archive member and document property carries (the files are reproducible).
FIXED = datetime.datetime(2025, 11, 3, 9, 0, 0)

# ------------------------------------------------------------------------------------------ the deck
#: (title, [(indent level, bullet)], speaker notes); a slide with a table has its rows under TABLES.
SLIDES: list[tuple[str, list[tuple[int, str]], str]] = [
    (
        "Welcome to the river gauge network",
        [
            (0, "Forty volunteers keep twelve weather stations running along the Ouse valley"),
            (0, "This briefing covers your first season: safety, visits, readings and who to call"),
            (1, "Bring this deck on your phone; the checklists are on slides 4 and 5"),
        ],
        "Introduce yourself and ask who has visited a station before.",
    ),
    (
        "Safety comes first",
        [
            (0, "Never visit a station alone when the river is above the amber mark"),
            (0, "Tell the duty coordinator before you leave and when you are back"),
            (1, "Send a text message with the station name and the word DONE"),
            (0, "Wear the orange life jacket on every weir walkway, even in summer"),
            (0, "Stop any visit when lightning is within ten kilometres"),
        ],
        "Stress the amber mark: most near misses happened on high water.",
    ),
    (
        "What a station measures",
        [
            (0, "Rain: a tipping bucket gauge counts every 0.2 mm"),
            (0, "Air: temperature and humidity in a ventilated screen at 1.5 m"),
            (0, "River: a pressure sensor gives the water level every ten minutes"),
            (1, "Levels are sent by radio to the valley hub and then to the public website"),
            (0, "Wind is measured only at Mill Weir and High Moor"),
        ],
        "Pass round the spare tipping bucket so people can see the mechanism.",
    ),
    (
        "Before you go: checklist",
        [
            (0, "Check the river level page and the weather warning for the valley"),
            (0, "Collect the station key and the spares bag from the depot"),
            (1, "The spares bag holds fuses, a funnel mesh, cable ties and a multimeter"),
            (0, "Charge your phone and download the visit form"),
        ],
        "The depot opens at 8 am on weekdays and 9 am at weekends.",
    ),
    (
        "At the station: checklist",
        [
            (0, "Clear leaves and insects from the rain gauge funnel"),
            (0, "Read the battery voltage; below 11.8 volts, replace the battery"),
            (0, "Compare the staff gauge with the level on the display"),
            (1, "A difference of more than 2 cm means the sensor needs recalibration"),
            (0, "Take two photographs: the screen and the river from the marker post"),
        ],
        "Show the photo of a blocked funnel from last October.",
    ),
    (
        "Reporting a fault",
        [
            (0, "Use the visit form for everything you checked, even when nothing was wrong"),
            (0, "Mark a fault as urgent when a station has sent no data for six hours"),
            (0, "Urgent faults go to the duty coordinator by phone, not by e-mail"),
        ],
        "Ask everyone to save the duty number now.",
    ),
    (
        "Who to call",
        [],
        "Read the table aloud; the duty phone rotates every Monday.",
    ),
    (
        "Your first season",
        [
            (0, "Shadow an experienced volunteer on your first two visits"),
            (0, "After that, visit your station once a fortnight from March to October"),
            (0, "Winter visits are monthly, and only in daylight"),
            (0, "The season ends with a supper at the boathouse in November"),
        ],
        "Hand out the station allocation sheet.",
    ),
]
#: Slide title -> the rows of its table (the first is the header).
TABLES = {
    "Who to call": [
        ["Role", "Name", "When to call"],
        ["Duty coordinator", "Priya Raman", "Urgent faults, late return, any injury"],
        ["Equipment lead", "Tom Becker", "Broken sensors, spare parts, radio problems"],
        ["Data lead", "Ana Sousa", "Readings that look wrong on the website"],
        ["Depot keyholder", "Sam Okafor", "Keys, spares bag, the boathouse"],
    ]
}


def make_deck() -> bytes:
    import pptx
    from pptx.util import Inches, Pt

    deck = pptx.Presentation()
    deck.core_properties.created = deck.core_properties.modified = FIXED
    deck.core_properties.title = "Volunteer briefing"
    for title, bullets, notes in SLIDES:
        slide = deck.slides.add_slide(deck.slide_layouts[5 if title in TABLES else 1])
        slide.shapes.title.text = title
        if bullets:
            body = slide.placeholders[1].text_frame
            body.text = bullets[0][1]
            for level, text in bullets[1:]:
                paragraph = body.add_paragraph()
                paragraph.text, paragraph.level = text, level
        rows = TABLES.get(title)
        if rows:
            shape = slide.shapes.add_table(len(rows), len(rows[0]), Inches(0.5), Inches(1.6), Inches(9), Inches(3))
            for r, row in enumerate(rows):
                for c, value in enumerate(row):
                    cell = shape.table.cell(r, c)
                    cell.text = value
                    cell.text_frame.paragraphs[0].runs[0].font.size = Pt(16)
        slide.notes_slide.notes_text_frame.text = notes
    buffer = io.BytesIO()
    deck.save(buffer)
    return buffer.getvalue()


# -------------------------------------------------------------------------------------- the workbook
STATIONS = [
    ["Station", "River", "Sensors", "Installed", "Status"],
    ["Mill Weir", "Ouse", "rain, air, level, wind", datetime.date(2016, 5, 12), "working"],
    ["Low Bridge", "Ouse", "rain, air, level", datetime.date(2017, 3, 30), "working"],
    ["High Moor", "Swale", "rain, air, wind", datetime.date(2017, 8, 2), "radio fault"],
    ["Kettle Beck", "Swale", "rain, level", datetime.date(2018, 4, 19), "working"],
    ["Church Ford", "Ure", "rain, air, level", datetime.date(2018, 10, 6), "working"],
    ["Sheep Wash", "Ure", "rain, level", datetime.date(2019, 6, 14), "battery low"],
    ["Old Quarry", "Nidd", "rain, air", datetime.date(2020, 2, 27), "working"],
    ["Ferry Lane", "Ouse", "level", datetime.date(2021, 9, 9), "working"],
    ["Hollin Wood", "Nidd", "rain, air, level", datetime.date(2022, 5, 21), "sensor drift"],
    ["Abbey Mill", "Ure", "rain, air, level", datetime.date(2023, 3, 4), "working"],
    ["Pike Pool", "Swale", "level", datetime.date(2023, 11, 18), "working"],
    ["Gallows Hill", "Nidd", "rain, air", datetime.date(2024, 7, 1), "working"],
]
VISITS = [
    ["Date", "Station", "Volunteer", "Work done", "Hours"],
    [datetime.date(2025, 3, 8), "Mill Weir", "Ana Sousa", "Cleared the rain gauge funnel of leaves", 1.5],
    [datetime.date(2025, 3, 15), "High Moor", "Tom Becker", "Replaced the radio aerial after a storm", 3],
    [datetime.date(2025, 3, 22), "Sheep Wash", "Sam Okafor", "Battery read 11.6 volts; replaced the battery", 2],
    [datetime.date(2025, 4, 5), "Hollin Wood", "Priya Raman", "Level differs from the staff gauge by 4 cm", 1],
    [datetime.date(2025, 4, 12), "Low Bridge", "Ana Sousa", "Routine visit, nothing to fix", 0.75],
    [datetime.date(2025, 4, 26), "Church Ford", "Ben Hartley", "Removed a wasp nest from the screen", 1.25],
    [datetime.date(2025, 5, 10), "Kettle Beck", "Lena Fischer", "Tightened the level sensor mounting", 2.5],
    [datetime.date(2025, 5, 24), "Old Quarry", "Ben Hartley", "Replaced the cracked humidity sensor", 2],
    [datetime.date(2025, 6, 7), "Ferry Lane", "Lena Fischer", "Cleared weed from the stilling well", 1.5],
    [datetime.date(2025, 6, 21), "Abbey Mill", "Sam Okafor", "Routine visit, nothing to fix", 0.5],
    [datetime.date(2025, 7, 5), "Pike Pool", "Tom Becker", "Recalibrated the pressure sensor", 3.5],
    [datetime.date(2025, 7, 19), "Gallows Hill", "Ana Sousa", "Painted the screen and checked the fence", 2],
    [datetime.date(2025, 8, 2), "High Moor", "Priya Raman", "Radio still drops out at night; logged a fault", 1],
    [datetime.date(2025, 8, 16), "Mill Weir", "Ben Hartley", "Oiled the wind vane bearing", 1],
    [datetime.date(2025, 9, 6), "Hollin Wood", "Tom Becker", "Fitted a new level sensor", 4],
]
PARTS = [
    ["Part", "Supplier", "Unit cost (GBP)", "In stock", "Used for"],
    ["12 V sealed battery", "Dales Power", 38.5, 4, "Station power during winter"],
    ["Funnel mesh", "Hydro Supplies", 2.2, 30, "Keeping leaves out of the rain gauge"],
    ["Pressure level sensor", "Hydro Supplies", 410, 1, "River level"],
    ["Humidity sensor", "Meteo Parts", 64, 3, "Air humidity in the screen"],
    ["Radio aerial", "Valley Radio", 27.95, 2, "Sending readings to the hub"],
    ["Fuse, 5 A", "Dales Power", 0.6, 50, "Protecting the logger"],
]


def make_workbook() -> bytes:
    import openpyxl

    workbook = openpyxl.Workbook()
    workbook.properties.created = workbook.properties.modified = FIXED
    for sheet, (title, rows) in enumerate([("Stations", STATIONS), ("Service visits", VISITS), ("Spare parts", PARTS)]):
        worksheet: Any = workbook.active if sheet == 0 else workbook.create_sheet()
        worksheet.title = title
        for row in rows:
            worksheet.append(row)
    buffer = io.BytesIO()
    workbook.save(buffer)
    return buffer.getvalue()


_MODIFIED = re.compile(rb"(<dcterms:modified[^>]*>)[^<]*(</dcterms:modified>)")


def with_fixed_times(data: bytes) -> bytes:
    """The archive ``data`` with every member dated :data:`FIXED`, and the document's modification
    time too (openpyxl stamps the current time when it saves)."""
    source = zipfile.ZipFile(io.BytesIO(data))
    out = io.BytesIO()
    stamp = FIXED.strftime("%Y-%m-%dT%H:%M:%SZ").encode()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for info in source.infolist():
            fixed = zipfile.ZipInfo(info.filename, date_time=FIXED.timetuple()[:6])
            fixed.compress_type = zipfile.ZIP_DEFLATED
            content = source.read(info)
            if info.filename == "docProps/core.xml":
                content = _MODIFIED.sub(rb"\g<1>" + stamp + rb"\g<2>", content)
            archive.writestr(fixed, content)
    return out.getvalue()


def main() -> int:
    for name, make in (("volunteer_briefing.pptx", make_deck), ("station_log.xlsx", make_workbook)):
        path = SAMPLES / name
        path.write_bytes(with_fixed_times(make()))
        print(f"wrote {path} ({path.stat().st_size:,} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
