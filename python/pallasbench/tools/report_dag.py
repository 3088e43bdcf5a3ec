"""The jaxpr DAG a record carries (`artifacts.jaxpr_dag`: nodes with a primitive and output shapes,
edges between ids) drawn as inline SVG: layers by longest path from the inputs, left to right,
the nodes inside a pallas_call's kernel tinted. Text is escaped: primitive names and params come
from the traced candidate."""
from __future__ import annotations

import html

NODE_W, NODE_H, GAP_X, GAP_Y = 132, 30, 40, 10
MAX_NODES = 160  # a larger graph is listed as a count: the SVG would be unreadable anyway


def _layers(nodes: list[dict], edges: list[tuple[int, int]]) -> dict[int, int]:
    """Each node's column: the longest path to it from a node with no inputs."""
    inputs: dict[int, list[int]] = {n: [] for n in (node["id"] for node in nodes)}
    for source, target in edges:
        if source in inputs and target in inputs:
            inputs[target].append(source)
    layer: dict[int, int] = {}

    def depth(node: int, seen: frozenset = frozenset()) -> int:
        if node not in layer:
            parents = [p for p in inputs[node] if p not in seen]  # a cycle (never in a jaxpr) stops here
            layer[node] = 1 + max((depth(p, seen | {node}) for p in parents), default=-1)
        return layer[node]

    for node in inputs:
        depth(node)
    return layer


def _label(node: dict) -> tuple[str, str]:
    outputs = node.get("outputs") or []
    shape = ""
    if outputs and isinstance(outputs[0], dict):
        dims = "x".join(str(d) for d in outputs[0].get("shape") or []) or "scalar"
        shape = f"{outputs[0].get('dtype', '')}[{dims}]"
    return str(node.get("primitive", "?")), shape


def dag_svg(dag) -> str | None:
    """The SVG, or None when the record carries no DAG or one too large to draw."""
    if not isinstance(dag, dict) or not isinstance(dag.get("nodes"), list) or not dag["nodes"]:
        return None
    nodes = [n for n in dag["nodes"] if isinstance(n, dict) and isinstance(n.get("id"), int)]
    if not nodes or len(nodes) > MAX_NODES:
        return None
    edges = [(e.get("from"), e.get("to")) for e in dag.get("edges") or [] if isinstance(e, dict)]
    layer = _layers(nodes, edges)
    rows: dict[int, int] = {}
    position: dict[int, tuple[int, int]] = {}
    for node in nodes:
        column = layer[node["id"]]
        row = rows.get(column, 0)
        rows[column] = row + 1
        position[node["id"]] = (column * (NODE_W + GAP_X) + 4, row * (NODE_H + GAP_Y) + 4)
    width = (max(layer.values()) + 1) * (NODE_W + GAP_X)
    height = max(rows.values()) * (NODE_H + GAP_Y) + 8
    parts = [f'<svg class="dag" xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
             f'viewBox="0 0 {width} {height}" font-size="10" font-family="monospace">']
    for source, target in sorted(set(edges)):
        if source in position and target in position:
            (x1, y1), (x2, y2) = position[source], position[target]
            parts.append(f'<line x1="{x1 + NODE_W}" y1="{y1 + NODE_H // 2}" x2="{x2}" y2="{y2 + NODE_H // 2}" '
                         'stroke="#999" stroke-width="0.8"/>')
    for node in nodes:
        x, y = position[node["id"]]
        primitive, shape = _label(node)
        fill = "#e8f0fe" if node.get("inside_pallas") else ("#fde9d9" if primitive == "pallas_call" else "#f5f5f5")
        title = html.escape(f"{primitive} {shape} {node.get('params', '')}".strip(), quote=True)
        parts.append(f'<g class="node" data-primitive="{html.escape(primitive, quote=True)}"><title>{title}</title>'
                     f'<rect x="{x}" y="{y}" width="{NODE_W}" height="{NODE_H}" rx="3" fill="{fill}" stroke="#777"/>'
                     f'<text x="{x + 4}" y="{y + 12}">{html.escape(primitive[:20])}</text>'
                     f'<text x="{x + 4}" y="{y + 24}" fill="#555">{html.escape(shape[:21])}</text></g>')
    parts.append("</svg>")
    return "".join(parts)
