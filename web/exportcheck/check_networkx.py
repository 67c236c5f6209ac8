"""Loads Athar's GEXF 1.2 and GraphML exports in NetworkX, as a researcher's script would.

Run by internal/export's TestNetworkX:

    python3 web/exportcheck/check_networkx.py DIR

DIR holds, for each case NAME, NAME.gexf12 (GEXF 1.2draft), NAME.graphml, NAME.cyjs and
NAME.expect.json ({"nodes": N, "edges": M, ...}). For each case it checks that
networkx.read_gexf and networkx.read_graphml give N nodes and M edges, and that every
edge's provenance (attestations, routes, narrations, gradings) is what the Cytoscape
export says. It prints one line per case and exits 1 at the first failure.
"""

import json
import os
import sys

import networkx as nx


def edges_by_id(g):
    """The edges of a (multi)graph by their id attribute, with their attributes."""
    out = {}
    if g.is_multigraph():
        items = g.edges(keys=True, data=True)
        for u, v, k, a in items:
            out[a.get("id", k)] = (u, v, a)
    else:
        for u, v, a in g.edges(data=True):
            out[a["id"]] = (u, v, a)
    return out


def check_case(d, name):
    path = lambda ext: os.path.join(d, name + ext)
    with open(path(".expect.json"), encoding="utf-8") as f:
        expect = json.load(f)
    with open(path(".cyjs"), encoding="utf-8") as f:
        cy = json.load(f)["elements"]
    want = {e["data"]["id"]: e["data"] for e in cy["edges"]}
    for ext, read, weight in ((".gexf12", nx.read_gexf, "weight"), (".graphml", nx.read_graphml, "attestations")):
        g = read(path(ext))
        if g.number_of_nodes() != expect["nodes"] or g.number_of_edges() != expect["edges"]:
            raise AssertionError(f"{name}{ext}: {g.number_of_nodes()} nodes and {g.number_of_edges()} edges, "
                                 f"want {expect['nodes']} and {expect['edges']}")
        got = edges_by_id(g)
        if set(got) != set(want):
            raise AssertionError(f"{name}{ext}: edge ids differ from the Cytoscape export's")
        for eid, (u, v, a) in got.items():
            w = want[eid]
            checks = {
                "source": (u, w["source"]),
                "target": (v, w["target"]),
                "attestations": (int(a[weight]), w["attestations"]),
                "routes": (int(a["routes"]), w["routes"]),
                "narrations": (a.get("narrations", ""), " | ".join(w["narrations"])),
                "gradings": (a.get("gradings", ""), " | ".join(w["gradings"])),
            }
            for k, (g_, w_) in checks.items():
                if g_ != w_:
                    raise AssertionError(f"{name}{ext}: {k} of edge {eid}: got {g_!r}, want {w_!r}")
    return f"{name}: {expect['nodes']} nodes, {expect['edges']} edges: networkx read_gexf (1.2) and read_graphml agree, provenance included"


def main():
    if len(sys.argv) != 2:
        print("usage: python3 check_networkx.py DIR", file=sys.stderr)
        sys.exit(2)
    d = sys.argv[1]
    names = sorted(f[: -len(".expect.json")] for f in os.listdir(d) if f.endswith(".expect.json"))
    if not names:
        print(f"{d}: no NAME.expect.json files: nothing to check", file=sys.stderr)
        sys.exit(2)
    print(f"networkx {nx.__version__}")
    for name in names:
        try:
            print(check_case(d, name))
        except AssertionError as e:
            print(f"FAIL {e}", file=sys.stderr)
            sys.exit(1)


main()
