#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Every relative link of README.md and docs/ points at a file of the tree, and every #anchor at a
heading of that page (GitHub's anchors: lower case, punctuation dropped, spaces to dashes). Exit 1
naming each broken link. Usage: check_doc_links.py [repository root]
"""
import os
import re
import sys

ROOT = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), ".."))
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")


def anchors(path):
    out = set()
    in_code = False
    with open(path) as f:
        for line in f:
            if line.startswith("```"):
                in_code = not in_code
            if in_code:
                continue
            m = re.match(r"#+\s+(.*)", line)
            if m:
                text = re.sub(r"[`*_]", "", m.group(1).strip().lower())
                out.add(re.sub(r"[^\w\- ]", "", text).replace(" ", "-"))
    return out


def main():
    pages = [os.path.join(ROOT, "README.md")]
    for folder, _, files in os.walk(os.path.join(ROOT, "docs")):
        pages += [os.path.join(folder, f) for f in files if f.endswith(".md")]
    broken = []
    for page in sorted(pages):
        in_code = False
        with open(page) as f:
            for n, line in enumerate(f, 1):
                if line.startswith("```"):
                    in_code = not in_code
                if in_code:
                    continue
                for target in LINK.findall(line):
                    if re.match(r"[a-z]+:", target):
                        continue  # http:, https:, mailto:
                    path, _, anchor = target.partition("#")
                    full = os.path.normpath(os.path.join(os.path.dirname(page), path)) if path else page
                    where = f"{os.path.relpath(page, ROOT)}:{n}"
                    if not os.path.exists(full):
                        broken.append(f"{where}: {target} (no such file)")
                    elif anchor and full.endswith(".md") and anchor not in anchors(full):
                        broken.append(f"{where}: {target} (no such heading)")
    for b in broken:
        print("check_doc_links:", b)
    if broken:
        sys.exit(1)
    print(f"check_doc_links: {len(pages)} pages, every relative link resolves")


if __name__ == "__main__":
    main()
