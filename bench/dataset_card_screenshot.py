#!/usr/bin/env python3
"""The release's card (dataset/README.md) rendered as a dataset hub shows it, photographed by
headless Chromium (tests/e2e/browser_pipe.py): the metadata the front matter gives (license,
configs with their rows, tags) in a side panel, the markdown body as the page.

Python's `markdown` package is not installed here (nor markdown-it or mistune), and the project
adds no dependency for one picture: the body is rendered by the few rules the card uses (headings,
paragraphs, lists two deep, pipe tables, fenced code, `code`, **bold**). Anything else shows as text.

usage: python3 bench/dataset_card_screenshot.py OUT_DIR [CARD.md]
       writes OUT_DIR/card.html, card_1280x800.png (the top) and card_full_1280.png (the whole page)"""
from __future__ import annotations

import html
import re
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "e2e"))

from browser_pipe import Browser  # noqa: E402

STYLE = """body{margin:0;font:15px/1.6 -apple-system,'Segoe UI',Helvetica,Arial,sans-serif;color:#1f2937;background:#fff}
header{border-bottom:1px solid #e5e7eb;padding:14px 32px;font-size:20px}header b{color:#111}
main{display:flex;gap:32px;padding:0 32px}article{flex:1;min-width:0}aside{width:300px;padding-top:24px;font-size:13px}
aside h4{margin:16px 0 6px;color:#6b7280;font-weight:600;text-transform:uppercase;font-size:11px}
.tag{display:inline-block;background:#f3f4f6;border-radius:6px;padding:1px 8px;margin:2px}
h1{font-size:28px;border-bottom:1px solid #e5e7eb;padding-bottom:6px}h2{font-size:22px;border-bottom:1px solid #e5e7eb;padding-bottom:4px;margin-top:32px}
h3{font-size:18px}h4{font-size:16px}code{background:#f3f4f6;border-radius:4px;padding:1px 4px;font-size:13px}
pre{background:#f9fafb;border:1px solid #e5e7eb;border-radius:8px;padding:12px;overflow:auto}pre code{background:none;padding:0}
table{border-collapse:collapse;margin:12px 0;font-size:13px;display:block;overflow-x:auto}
th,td{border:1px solid #e5e7eb;padding:4px 10px;text-align:left;vertical-align:top}th{background:#f9fafb}"""


def inline(text: str) -> str:
    parts = re.split(r"(`[^`]+`)", text)
    out = []
    for part in parts:
        if part.startswith("`") and part.endswith("`") and len(part) > 1:
            out.append(f"<code>{html.escape(part[1:-1])}</code>")
        else:
            out.append(re.sub(r"\*\*(.+?)\*\*", r"<b>\1</b>", html.escape(part)))
    return "".join(out)


def cells(line: str) -> list[str]:
    return [c.strip().replace("\\|", "|") for c in re.split(r"(?<!\\)\|", line.strip().strip("|"))]


def body_html(markdown: str) -> str:
    lines, out, i = markdown.splitlines(), [], 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("```"):
            end = next(j for j in range(i + 1, len(lines)) if lines[j].startswith("```"))
            out.append(f"<pre><code>{html.escape(chr(10).join(lines[i + 1:end]))}</code></pre>")
            i = end + 1
        elif re.match(r"#{1,6} ", line):
            level = len(line.split(" ")[0])
            out.append(f"<h{level}>{inline(line[level + 1:])}</h{level}>")
            i += 1
        elif line.startswith("|") and i + 1 < len(lines) and lines[i + 1].startswith("|---"):
            rows = [cells(line)]
            i += 2
            while i < len(lines) and lines[i].startswith("|"):
                rows.append(cells(lines[i]))
                i += 1
            head = "".join(f"<th>{inline(c)}</th>" for c in rows[0])
            body = "".join("<tr>" + "".join(f"<td>{inline(c)}</td>" for c in r) + "</tr>" for r in rows[1:])
            out.append(f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>")
        elif line.startswith("- "):
            items = []
            while i < len(lines) and (lines[i].startswith("- ") or lines[i].startswith("  - ")):
                nested = lines[i].startswith("  - ")
                items.append(("  " if nested else "") + lines[i].strip()[2:])
                i += 1
            html_items, open_sub = [], False
            for item in items:
                if item.startswith("  ") and not open_sub:
                    html_items.append("<ul>")
                    open_sub = True
                elif not item.startswith("  ") and open_sub:
                    html_items.append("</ul>")
                    open_sub = False
                html_items.append(f"<li>{inline(item.strip())}</li>")
            out.append("<ul>" + "".join(html_items) + ("</ul>" if open_sub else "") + "</ul>")
        elif line.strip():
            paragraph = [line]
            i += 1
            while i < len(lines) and lines[i].strip() and not re.match(r"(#{1,6} |\||- |```)", lines[i]):
                paragraph.append(lines[i])
                i += 1
            out.append(f"<p>{inline(' '.join(paragraph))}</p>")
        else:
            i += 1
    return "\n".join(out)


def side_panel(meta: dict) -> str:
    infos = {i["config_name"]: i for i in meta.get("dataset_info", [])}
    configs = "".join(f"<div><code>{html.escape(c['config_name'])}</code> "
                      f"{infos.get(c['config_name'], {}).get('splits', [{}])[0].get('num_examples', '?')} rows</div>"
                      for c in meta.get("configs", []))
    tags = "".join(f"<span class=tag>{html.escape(str(t))}</span>" for t in meta.get("tags", []))
    return (f"<aside><h4>License</h4><span class=tag>{html.escape(str(meta.get('license')))}</span>"
            f"<h4>Subsets (configs)</h4>{configs}<h4>Size</h4><span class=tag>"
            f"{html.escape(', '.join(meta.get('size_categories', [])))}</span><h4>Tags</h4>{tags}</aside>")


def page(card: str) -> str:
    _, front, body = card.split("---\n", 2)
    meta = yaml.safe_load(front)
    return (f"<!doctype html><html><head><meta charset=utf-8><style>{STYLE}</style></head><body>"
            f"<header>Datasets: <b>{html.escape(str(meta.get('pretty_name')))}</b></header>"
            f"<main><article>{body_html(body)}</article>{side_panel(meta)}</main></body></html>")


def main(argv: list[str]) -> int:
    out = Path(argv[1])
    card = Path(argv[2]) if len(argv) > 2 else ROOT / "dataset" / "README.md"
    out.mkdir(parents=True, exist_ok=True)
    target = out / "card.html"
    target.write_text(page(card.read_text()), encoding="utf-8")
    browser = Browser()
    try:
        browser.open(target, 1280, 800)
        browser.screenshot(out / "card_1280x800.png")
        height = int(browser.evaluate("document.documentElement.scrollHeight"))
        shot = browser.page("Page.captureScreenshot", format="png", captureBeyondViewport=True,
                            clip={"x": 0, "y": 0, "width": 1280, "height": height, "scale": 1})
        import base64

        (out / "card_full_1280.png").write_bytes(base64.b64decode(shot["data"]))
    finally:
        browser.close()
    print(f"wrote {out}/card.html, card_1280x800.png, card_full_1280.png ({height} px tall)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
