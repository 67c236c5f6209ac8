#!/usr/bin/env python3
"""Cut the repository's corpus fixture from the canonical collections.

Usage: python3 internal/hadithapi/testdata/cut.py /work/shared/corpus

Writes internal/hadithapi/testdata/corpus/{eng,ara}-{collection}.json: a few dozen hadiths of
three collections, in both languages, in the hadith-api edition format (the metadata keeps
only the sections the hadiths use). The hadiths are the seeds' (Sahih Muslim 4588 = 'Abd
al-Baqi 1763, Sunan Abi Dawud 2690, Sahih al-Bukhari 3953 and 3986) with their neighbours, so
that tests can list a chapter's narrations. Source: hadith-api by fawazahmed0, via
compressed_hadith_sqlite (see docs/corpus.md); never copy the whole corpus into the repository.
"""
import gzip, json, os, sys

CUT = {
    "muslim": list(range(4584, 4593)),
    "abudawud": list(range(2686, 2695)),
    "bukhari": list(range(3950, 3957)) + [3986],
}

def main(src):
    out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus")
    os.makedirs(out, exist_ok=True)
    for col, nums in CUT.items():
        for lang in ("eng", "ara"):
            with gzip.open(os.path.join(src, f"{lang}-{col}.json.gz"), "rt", encoding="utf-8") as f:
                d = json.load(f)
            hs = [h for h in d["hadiths"] if h["hadithnumber"] in nums]
            books = {str(h["reference"]["book"]) for h in hs}
            m = d["metadata"]
            meta = {"name": m["name"],
                    "sections": {k: v for k, v in m["sections"].items() if k in books},
                    "section_details": {k: v for k, v in m["section_details"].items() if k in books}}
            with open(os.path.join(out, f"{lang}-{col}.json"), "w", encoding="utf-8") as f:
                json.dump({"metadata": meta, "hadiths": hs}, f, ensure_ascii=False, indent=1)
                f.write("\n")

if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "/work/shared/corpus")
